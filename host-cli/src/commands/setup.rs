//! `reasonix setup`: the setup screen (host-cli/src/tui/setup), and the real home directory in
//! messages that name it `<home>`.

use crate::exit::{Code, Failure, Outcome};
use crate::term::errln;
use crate::tui::setup::{self, SetupError, SetupOutcome};
use reasonix_config::Paths;
use std::path::Path;

pub fn run() -> Outcome {
    let paths = Paths::from_env();
    match setup::run_setup_screen(&paths) {
        Ok(SetupOutcome::Configured(written)) => {
            errln!("saved {}", written.config.display());
            if let Some(file) = &written.key_file {
                errln!("saved the key to {}", file.display());
            }
            Ok(Code::Success)
        }
        Ok(SetupOutcome::Cancelled) => {
            errln!("setup cancelled; nothing was written");
            Ok(Code::Failure)
        }
        Err(e @ SetupError::NoTerminal { .. }) => Err(Failure::usage(e)),
        Err(e) => Err(Failure::runtime(e)),
    }
}

/// `message` with `<home>` (how kernel messages name Reasonix's home directory, which they
/// do not know) replaced by the real one, e.g. `/home/u/.reasonix`.
pub fn with_real_home(message: &str, home: &Path) -> String {
    message.replace("<home>", &home.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use reasonix_config::providers::ModelRefError;

    #[test]
    fn placeholders_become_the_real_home() {
        let text = with_real_home(
            &ModelRefError::NoProviders.to_string(),
            Path::new("/u/.reasonix"),
        );
        assert!(!text.contains("<home>"), "{text}");
        assert!(text.contains("/u/.reasonix/config.toml"), "{text}");
        assert!(text.contains("/u/.reasonix/.env"), "{text}");
    }
}
