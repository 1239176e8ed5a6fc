//! What the live area can show instead of the composer.

/// What the live area shows instead of the composer.
pub enum Overlay {
    /// The session picker (`/resume`, `-r` without a match).
    Picker(super::picker::Picker),
    /// The tool calls of the session (Ctrl+T).
    Calls(super::calls::CallPicker),
    /// The turns to rewind to (`/rewind`, Esc Esc).
    Turns(super::turn_picker::TurnPicker),
}
