// Rust values and expressions as gdb shows them without pretty printers: structs, tuples,
// tuple structs, enums, references, Box, slices, &str, chars, wide integers, paths.
#![allow(dead_code)]

pub const ANSWER: i32 = 42;
pub static GREETING: &str = "hello";
pub static mut COUNTER: u32 = 7;

pub mod shapes {
    pub const SIDES: u8 = 4;
    pub static ORIGIN: Point = Point { x: 0, y: 0 };

    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Point {
        pub x: i32,
        pub y: i32,
    }

    impl Point {
        pub const UNIT: i32 = 1;
    }

    #[derive(Debug, Clone, Copy, PartialEq)]
    pub enum Level {
        Low,
        Mid,
        High,
    }

    #[inline(never)]
    pub fn area(w: i32, h: i32) -> i32 {
        w * h
    }
}

#[derive(Debug)]
pub struct Pair(i32, i64);

#[derive(Debug)]
pub struct Unit;

#[derive(Debug)]
pub struct Body {
    pub pos: (i32, i32),
    pub name: &'static str,
    pub level: shapes::Level,
}

#[derive(Debug)]
pub enum Shape {
    Circle(u32),
    Rect { w: u16, h: u16 },
    Empty,
}

#[inline(never)]
fn observe<T: std::fmt::Debug>(value: &T) {
    std::hint::black_box(value);
}

fn main() {
    let pt = shapes::Point { x: 3, y: -4 };
    let tuple: (i32, u8, bool) = (1, 2, true);
    let nested = ((1u16, 2u16), (3i8, -4i8));
    let pair = Pair(10, -20);
    let unit = ();
    let unit_struct = Unit;
    let body = Body { pos: (5, 6), name: "ball", level: shapes::Level::Mid };
    let level = shapes::Level::High;
    let circle = Shape::Circle(9);
    let rect = Shape::Rect { w: 2, h: 3 };
    let empty = Shape::Empty;
    let some: Option<i32> = Some(5);
    let none: Option<i32> = None;
    let ok: Result<u8, i16> = Ok(1);
    let array = [1, 2, 3];
    let slice: &[i32] = &array[..];
    let text: &str = "text";
    let letter = 'a';
    let unicode = 'é';
    let byte: u8 = 97;
    let signed: i8 = -5;
    let big: i128 = -170141183460469231731687303715884105728;
    let ubig: u128 = 340282366920938463463374607431768211455;
    let single: f32 = 1.5;
    let double: f64 = -2.25;
    let flag = true;
    let reference: &i32 = &array[1];
    let mut mutable = 11i64;
    let raw: *mut i64 = &mut mutable;
    let constant: *const shapes::Point = &pt;
    let boxed: Box<shapes::Point> = Box::new(shapes::Point { x: 7, y: 8 });
    let pt_ref: &shapes::Point = &pt;
    observe(&(pt, tuple, nested, pair, unit, unit_struct, &body, level)); // @bp:values
    observe(&(&circle, &rect, &empty, some, none, ok, array, slice, text, letter, unicode));
    observe(&(byte, signed, big, ubig, single, double, flag, reference, raw, constant));
    observe(&(&boxed, pt_ref, shapes::area(2, 3), ANSWER, GREETING, shapes::SIDES));
    unsafe {
        COUNTER += 1;
        observe(&COUNTER);
    }
    observe(&shapes::ORIGIN);
}
