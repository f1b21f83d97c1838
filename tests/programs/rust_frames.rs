// Frames of a Rust program as gdb names them: generic functions with their arguments
// (`core::iter::traits::iterator::Iterator::sum<...>`), impl blocks (`{impl#0}`), closures
// (`main::{closure#0}`), inlined calls inside their namespaces; and a crate `main` holding
// a closure, whose backtraces gdb does not end at main.
trait Speak {
    fn speak(&self) -> String;
}
struct Dog {
    name: String,
}
impl Speak for Dog {
    fn speak(&self) -> String {
        format!("{} woofs", self.name) /* @bp:speak */
    }
}
fn area(side: &u32) -> u32 {
    side * side /* @bp:area */
}
fn main() {
    let k = 3;
    let add = |x: i32| x + k;
    let dog: Box<dyn Speak> = Box::new(Dog { name: "rex".into() });
    let sides = vec![1u32, 2, 3];
    let total: u32 = sides.iter().map(area).sum();
    println!("{} {} {}", add(4), dog.speak(), total);
}
