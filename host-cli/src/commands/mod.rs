pub mod plugins;
pub mod tool_doc;
pub mod tools;
pub mod version;
