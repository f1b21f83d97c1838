// A Vec in a block: its var object leaves scope at the block's end (`-var-update`).
fn main() {
    let total = {
        let inner = vec![1, 2, 3];
        inner.iter().sum::<i32>() /* @bp:inner */
    };
    println!("{}", total);
}
