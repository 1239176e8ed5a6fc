/// A square with whole-number sides.
pub struct Square {
    pub side: u32,
}

impl Square {
    pub fn area(&self) -> u32 {
        self.side * self.side
    }
}
