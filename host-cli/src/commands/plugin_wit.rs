//! `reasonix plugin wit [--out DIR]`: writes the plugin contract (the WIT package this binary
//! loads, `reasonix:plugin`) so components can be written in any language with a WIT binding
//! generator. The files are embedded at build time, so they always match the running binary.

use crate::exit::{Code, Failure, Outcome};
use crate::term::outln;
use anyhow::Context;
use std::path::Path;

/// The files of `wit/0.2.0/`, byte for byte.
pub const WIT_FILES: &[(&str, &str)] = &[
    ("host.wit", include_str!("../../../wit/0.2.0/host.wit")),
    (
        "interceptor.wit",
        include_str!("../../../wit/0.2.0/interceptor.wit"),
    ),
    ("plugin.wit", include_str!("../../../wit/0.2.0/plugin.wit")),
    (
        "provider.wit",
        include_str!("../../../wit/0.2.0/provider.wit"),
    ),
    ("tool.wit", include_str!("../../../wit/0.2.0/tool.wit")),
    ("types.wit", include_str!("../../../wit/0.2.0/types.wit")),
    ("worlds.wit", include_str!("../../../wit/0.2.0/worlds.wit")),
];

/// Write every file into `out` (created if missing). Existing files of the same name are
/// replaced; nothing else in the directory is touched.
pub fn write_to(out: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for (name, text) in WIT_FILES {
        let path = out.join(name);
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

pub fn run(out: Option<&Path>) -> Outcome {
    let out = out.unwrap_or(Path::new("wit"));
    write_to(out).map_err(Failure::runtime)?;
    outln!(
        "wrote the WIT package {}@{} to {}:",
        reasonix_host::WIT_PACKAGE,
        reasonix_host::SUPPORTED_WIT_VERSIONS.join(", "),
        out.display()
    );
    for (name, _) in WIT_FILES {
        outln!("  {name}");
    }
    outln!("worlds: tool-plugin, provider-plugin, interceptor-plugin, all-roles (see worlds.wit)");
    Ok(Code::Success)
}
