pub mod shapes;

pub fn area_sum(a: &shapes::Square, b: &shapes::Square) -> u32 {
    a.area() + b.area()
}

pub fn doubled(s: &shapes::Square) -> u32 {
    2 * s.area()
}
