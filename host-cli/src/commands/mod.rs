pub mod plugins;
pub mod tools;
pub mod version;
