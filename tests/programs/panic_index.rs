// A Rust program that panics on an index out of bounds (through Vec's Index impl).
#[inline(never)]
fn pick(values: &Vec<u64>, index: usize) -> u64 {
    values[index] // @bp:panic_index
}

fn main() {
    let values = vec![1u64, 2, 3];
    let index = std::env::args().count() + 5;
    println!("{}", pick(&values, index)); // @bp:panic_call
}
