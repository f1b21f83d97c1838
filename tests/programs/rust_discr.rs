// Enums whose discriminants are negative: rustc writes DW_AT_discr_value in an unsigned
// form (data1 156 for -100 in an i8), the discriminant member has the signed type.
#[repr(i8)]
#[derive(Debug)]
enum Level {
    Low(u8) = -100,
    Mid(u16) = 5,
    High = 120,
}

#[repr(i16)]
#[derive(Debug)]
enum Wide {
    Neg(u32) = -300,
    Pos(u8) = 300,
}

fn main() {
    let low = Level::Low(7);
    let mid = Level::Mid(9);
    let high = Level::High;
    let neg = Wide::Neg(11);
    let pos = Wide::Pos(12);
    println!("{:?} {:?} {:?} {:?} {:?}", low, mid, high, neg, pos); // @bp:show
}
