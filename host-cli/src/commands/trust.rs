//! `reasonix trust`: the user-level list of workspaces whose project file may widen what
//! plugins, commands and credentials reach (`<home>/trust.json`).

use crate::exit::{Code, Failure, Outcome};
use crate::term::outln;
use anyhow::anyhow;
use reasonix_config::{Paths, TrustCheck, TrustStore};
use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    /// The workspace to trust (default: the current directory), with the reasonix.toml and
    /// project settings.json files (whose hooks then run) it holds now: when one changes, what
    /// it configures is untrusted again until you review it and trust it again.
    dir: Option<PathBuf>,
    /// Stop trusting the directory instead.
    #[arg(long, conflicts_with = "list")]
    remove: bool,
    /// Print the trusted directories.
    #[arg(long)]
    list: bool,
}

pub fn run(args: TrustArgs) -> Outcome {
    let paths = Paths::from_env();
    let mut store = TrustStore::load(&paths.home).map_err(Failure::usage)?;
    if args.list {
        if store.workspaces.is_empty() {
            outln!("no trusted workspaces; `reasonix trust [DIR]` adds one");
        }
        for entry in &store.workspaces {
            let mut note = match store.check(&entry.path) {
                TrustCheck::Changed => {
                    "  (reasonix.toml changed since: untrusted until `reasonix trust` again)"
                }
                _ => "",
            }
            .to_string();
            if store.check_settings(&entry.path) == TrustCheck::Changed {
                note.push_str(
                    "  (settings files changed since: their hooks do not run until `reasonix trust` again)",
                );
            }
            outln!("{}{note}", entry.path.display());
        }
        return Ok(Code::Success);
    }
    let dir = match args.dir {
        Some(dir) => dir,
        None => std::env::current_dir()
            .map_err(|e| Failure::usage(anyhow!("cannot read the current directory: {e}")))?,
    };
    if !args.remove && !dir.is_dir() {
        return Err(Failure::usage(anyhow!(
            "{} is not a directory; name the workspace to trust",
            dir.display()
        )));
    }
    let changed = if args.remove {
        store.remove(&dir)
    } else {
        store.add(&dir)
    };
    match (args.remove, changed) {
        (false, false) => outln!(
            "{} is already trusted, with this reasonix.toml and these settings files",
            dir.display()
        ),
        (true, false) => {
            return Err(Failure::usage(anyhow!(
                "{} is not in the trust list (see `reasonix trust --list`; a directory above it may be)",
                dir.display()
            )));
        }
        (remove, true) => {
            store.save(&paths.home).map_err(Failure::runtime)?;
            let verb = if remove {
                "no longer trusted"
            } else {
                "trusted: its reasonix.toml, as it is now, may widen the sandbox, permissions and providers, and the hooks and permissions of its .claude/settings.json, .claude/settings.local.json and .reasonix/settings.json, as they are now, apply"
            };
            outln!("{}: {verb}", dir.display());
            if !remove {
                for pin in store.hook_pins(&dir) {
                    outln!(
                        "  a hook runs {}, pinned as it is now: when it changes, that hook stops running until you trust again",
                        pin.path
                    );
                }
            }
        }
    }
    Ok(Code::Success)
}
