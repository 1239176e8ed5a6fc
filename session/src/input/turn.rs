//! What the user sends in one turn: text, and images (an `@server:uri` resource that is an
//! image, an image block of `--input-format stream-json`).

use reasonix_core::types::Image;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Turn {
    pub text: String,
    pub images: Vec<Image>,
    /// What the user typed, when `text` was expanded from it (a custom command's template,
    /// resources appended): the planner's route reads only these words (`None`: `text` is
    /// the user's own).
    pub words: Option<String>,
}

impl Turn {
    pub fn text(text: impl Into<String>) -> Turn {
        Turn {
            text: text.into(),
            ..Turn::default()
        }
    }
}
