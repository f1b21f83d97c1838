// Rust std values through the toolchain's gdb pretty printers (lib/rustlib/etc).
#![allow(dead_code)]
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::{Rc, Weak};
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

#[derive(Debug)]
pub struct Holder {
    pub name: String,
    pub items: Vec<i32>,
    pub tag: Option<&'static str>,
    pub shared: Rc<i32>,
    pub counts: BTreeMap<u8, u16>,
}

#[inline(never)]
fn observe<T: std::fmt::Debug>(value: &T) {
    std::hint::black_box(value);
}

#[inline(never)]
fn takes(x: (i32, i32), n: u32) -> i32 {
    x.0 + n as i32 // @bp:takes
}

fn main() {
    let vi: Vec<i32> = vec![1, 2, 3];
    let vs: Vec<String> = vec!["a".to_string(), "bc".to_string()];
    let vp: Vec<Point> = vec![Point { x: 1, y: 2 }, Point { x: 3, y: 4 }];
    let empty_vec: Vec<i32> = Vec::new();
    let string = String::from("hello");
    let empty_string = String::new();
    let text: &str = "world";
    let mut array = [10, 20, 30, 40];
    let slice: &[i32] = &vi[1..];
    let mut_slice: &mut [i32] = &mut array[..2];
    let some: Option<i32> = Some(5);
    let none: Option<i32> = None;
    let some_string: Option<String> = Some("s".to_string());
    let ok: Result<i32, String> = Ok(7);
    let err: Result<i32, String> = Err("bad".to_string());
    let boxed: Box<i32> = Box::new(9);
    let boxed_point: Box<Point> = Box::new(Point { x: 5, y: 6 });
    let rc: Rc<i32> = Rc::new(11);
    let rc2 = Rc::clone(&rc);
    let weak: Weak<i32> = Rc::downgrade(&rc);
    let arc: Arc<String> = Arc::new("arc".to_string());
    let cell = Cell::new(3u8);
    let refcell = RefCell::new(vec![1u8, 2]);
    let borrowed = RefCell::new(4i64);
    let guard = borrowed.borrow();
    let mut hm: HashMap<i32, i32> = HashMap::new();
    hm.insert(1, 10);
    let mut hs: HashSet<i32> = HashSet::new();
    hs.insert(5);
    let empty_map: HashMap<u8, u8> = HashMap::new();
    let mut bm: BTreeMap<i32, &str> = BTreeMap::new();
    bm.insert(2, "two");
    bm.insert(1, "one");
    let bs: BTreeSet<u32> = [3, 1, 2].iter().copied().collect();
    let mut dq: VecDeque<i32> = VecDeque::with_capacity(4);
    dq.push_back(1);
    dq.push_back(2);
    dq.push_back(3);
    dq.pop_front();
    dq.pop_front();
    dq.push_back(4);
    dq.push_back(5);
    dq.push_back(6);
    let nested: Vec<Option<String>> = vec![Some("x".to_string()), None];
    let mut map_vec: HashMap<String, Vec<i32>> = HashMap::new();
    map_vec.insert("k".to_string(), vec![1, 2]);
    let holder = Holder {
        name: "h".to_string(),
        items: vec![4, 5],
        tag: Some("t"),
        shared: Rc::clone(&rc),
        counts: [(1u8, 2u16)].iter().copied().collect(),
    };
    let pair = (5, 6);
    observe(&(&vi, &vs, &vp, &empty_vec, &string, &empty_string, text, slice)); // @bp:main
    observe(&(&mut_slice, some, none, &some_string, &ok, &err, &boxed, &boxed_point));
    observe(&(&rc, &rc2, &weak, &arc, &cell, &refcell, &guard, &hm, &hs, &empty_map));
    observe(&(&bm, &bs, &dq, &nested, &map_vec, &holder));
    takes(pair, 3);
}
