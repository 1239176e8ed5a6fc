pub mod doctor;
pub mod plugins;
pub mod providers;
pub mod tool_doc;
pub mod tools;
pub mod version;
