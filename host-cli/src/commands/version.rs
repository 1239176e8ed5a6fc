use crate::exit::{Code, Outcome};
use crate::term::outln;

/// Prints without loading anything: this is the baseline start-up is measured against.
pub fn run() -> Outcome {
    outln!(
        "reasonix {} (plugin contract {}@{})",
        env!("CARGO_PKG_VERSION"),
        reasonix_host::WIT_PACKAGE,
        reasonix_host::SUPPORTED_WIT_VERSIONS.join(", ")
    );
    Ok(Code::Success)
}
