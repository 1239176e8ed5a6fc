//! The runtime's escaped writers ([`reasonix_runtime::term`]): the only way `reasonix` writes
//! to stdout and stderr.

pub use reasonix_runtime::term::{json_out, print_json, terminal_attached, write_err, write_out};
pub(crate) use reasonix_runtime::{err, errln, out, outln};
