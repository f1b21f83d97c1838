// Rust values: a struct, an enum with data, Option, Vec and &str.
struct Point { x: i32, y: i64 }
enum Shape { Circle(f64), Rect { w: u32, h: u32 } }
#[inline(never)]
fn work(p: &Point, s: &Shape, v: &Vec<u8>, name: &str) -> i64 {
    let total = p.x as i64 + p.y + v.len() as i64 + name.len() as i64;
    let opt: Option<i32> = Some(3);
    if let Shape::Rect { w, .. } = s { // @bp:rust
        return total + *w as i64 + opt.unwrap() as i64; }
    total
}
fn main() {
    let p = Point { x: 1, y: 2 };
    let s = Shape::Rect { w: 3, h: 4 };
    let v = vec![1u8, 2, 3];
    println!("{}", work(&p, &s, &v, "hello"));
    let _ = Shape::Circle(1.0);
}
