// Agent → Client message implementations
mod notifications;
mod requests;
