// Client → Agent message implementations
mod notifications;
mod requests;
