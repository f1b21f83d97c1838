// Enums whose variant changes between stops, for MI var objects over a session.
fn main() {
    let mut o: Option<i32> = None;
    let mut r: Result<u8, i16> = Ok(1);
    println!("{:?} {:?}", o, r); // @bp:before
    o = Some(3);
    r = Err(-2);
    println!("{:?} {:?}", o, r); // @bp:changed
    o = Some(4);
    println!("{:?} {:?}", o, r); // @bp:after
}
