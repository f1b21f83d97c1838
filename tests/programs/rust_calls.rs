// Functions a Rust user calls from the debugger, with values of each kind rustc passes its
// own way: scalars, scalar pairs (`Point`, `&str`, `Option<i32>`), small and large
// aggregates, floats, a niche (`Option<Box<i32>>`), methods taking `&self`, `self` and
// `&mut self`, and enums whose variants hold different data. Each
// call's result is also kept in a local, for the test to compare with.
#[derive(Debug, Clone, Copy)]
pub struct Point {
    x: i32,
    y: i32,
}

#[derive(Debug, Clone, Copy)]
pub struct Rgb {
    r: u8,
    g: u8,
    b: u8,
}

#[derive(Debug, Clone, Copy)]
pub struct Box3 {
    w: i64,
    h: i64,
    d: i64,
}

#[derive(Debug, Clone, Copy)]
pub struct Span {
    lo: f64,
    hi: f64,
}

#[derive(Debug, Clone, Copy)]
pub enum Mixed {
    Int(i32),
    Float(f32),
}

#[derive(Debug)]
pub enum Shape {
    Circle(f64),
    Square(i32),
}

pub mod geo {
    pub fn dist2(a: &super::Point, b: &super::Point) -> i32 {
        (a.x - b.x).pow(2) + (a.y - b.y).pow(2)
    }
}

impl Point {
    pub fn norm1(&self) -> i32 {
        self.x.abs() + self.y.abs()
    }
    pub fn swapped(self) -> Point {
        Point { x: self.y, y: self.x }
    }
    pub fn shift(&mut self, by: i32) -> i32 {
        self.x += by;
        self.x
    }
}

#[inline(never)]
fn twice(n: i32) -> i32 {
    n * 2
}
#[inline(never)]
fn mk(x: i32, y: i32) -> Point {
    Point { x, y }
}
#[inline(never)]
fn grey(level: u8) -> Rgb {
    Rgb { r: level, g: level, b: level }
}
#[inline(never)]
fn brightness(c: Rgb) -> u32 {
    c.r as u32 + c.g as u32 + c.b as u32
}
#[inline(never)]
fn cube(side: i64) -> Box3 {
    Box3 { w: side, h: side + 1, d: side + 2 }
}
#[inline(never)]
fn volume(b: Box3) -> i64 {
    b.w * b.h * b.d
}
#[inline(never)]
fn widen(s: Span, by: f64) -> Span {
    Span { lo: s.lo - by, hi: s.hi + by }
}
#[inline(never)]
fn half(n: i32) -> Option<i32> {
    if n % 2 == 0 { Some(n / 2) } else { None }
}
#[inline(never)]
fn boxed(n: i32) -> Option<Box<i32>> {
    if n > 0 { Some(Box::new(n)) } else { None }
}
#[inline(never)]
fn letters(s: &str) -> usize {
    s.chars().count()
}
#[inline(never)]
fn area(s: &Shape) -> f64 {
    match s {
        Shape::Circle(r) => 3.0 * r * r,
        Shape::Square(w) => (w * w) as f64,
    }
}
#[inline(never)]
fn area_of(s: Shape) -> f64 {
    area(&s)
}
#[inline(never)]
fn flip(m: Mixed) -> Mixed {
    match m {
        Mixed::Int(i) => Mixed::Float(i as f32 + 0.5),
        Mixed::Float(f) => Mixed::Int(f as i32),
    }
}
#[inline(never)]
fn note(_n: i32) {}

fn main() {
    let mut p = Point { x: 1, y: 2 };
    let name = "héllo";
    let span = Span { lo: 1.5, hi: 2.5 };
    let shape = Shape::Square(3);
    let q = mk(4, 6);
    let c = grey(7);
    let b = cube(2);
    let w = widen(span, 0.5);
    let h = half(8);
    let none = half(3);
    let k = boxed(5);
    let m = flip(Mixed::Int(2));
    let primes = [2, 3, 5, 7];
    let tail = &primes[1..];
    let total = twice(3) + geo::dist2(&p, &q) + brightness(c) as i32 + volume(b) as i32 + letters(name) as i32
        + p.norm1() + p.swapped().x + p.shift(0) + area(&shape) as i32 + area_of(Shape::Circle(1.0)) as i32;
    note(total);
    println!("{} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}", total, q, c, b, w, h, none, k, m, tail);  // @bp:calls
}
