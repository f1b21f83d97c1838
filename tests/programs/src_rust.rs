// Source-level tests in Rust: a function in a module, found by its path.
mod module {
    #[inline(never)]
    pub fn function(n: u64) -> u64 {
        let local: u64 = n * 3 + 4; // @bp:rust_fn
        local + 1
    }
}

#[inline(never)]
fn accumulate(count: u64) -> u64 {
    let mut total: u64 = 0;
    for i in 0..count {
        total += module::function(i); // @bp:rust_loop
    }
    total
}

fn main() {
    let total = accumulate(3);
    println!("total={}", total);
}
