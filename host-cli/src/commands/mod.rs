pub mod doctor;
pub mod plugins;
pub mod providers;
pub mod run;
pub mod sessions;
pub mod tool_doc;
pub mod tools;
pub mod version;
