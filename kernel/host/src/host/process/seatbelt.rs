//! The Seatbelt (`sandbox-exec`) command line for one job on macOS, and the one-time check that
//! Seatbelt works here.
//!
//! The builder is plain code, compiled and tested on every platform; only the call sites in
//! `mod.rs` are macOS-only. No path is ever written into the profile text: each one is a
//! `-D KEY=path` parameter that the profile names with `(param "KEY")`, so a path containing `"`,
//! `)` or a newline cannot change the profile. The profile text depends only on how many paths
//! there are of each kind and on `[sandbox] network`.
//!
//! Seatbelt checks an operation against the path the kernel resolved (`/private/tmp/x`, never
//! `/tmp/x`), so writable roots are given in their canonical form. Denials are given in both the
//! form from the config and the canonical form, so they hold whichever one is compared.
//!
//! `sandbox-exec` itself starts with an empty environment; the job's variables are set inside
//! the sandbox by `/usr/bin/env -i NAME=VALUE… program args…`, so they never reach the launcher.
//! They are on a command line only until `sandbox-exec` and `env` have each exec'd the next
//! program (unlike bubblewrap, which stays the job's parent and so reads them from a
//! descriptor).
//!
//! Protected configuration paths ([`SandboxPolicy::protected`]) are denied every write under
//! both spellings, as a subpath: one that does not exist yet cannot be created either. Reasonix's
//! own directories are in `forbid_read` (no reads, no writes). The writable directories leading
//! to either are guarded: they cannot be renamed or removed.
//!
//! None of this has run on a Mac yet: it is checked by the tests below only.

use super::JobEnv;
use crate::host::bindings::reasonix::plugin::types;
use crate::sandbox::SandboxPolicy;
use crate::sandbox::real_path;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Always this binary, never a `PATH` lookup: a `sandbox-exec` planted earlier on `PATH` would
/// run the job unconfined. Replacing `/usr/bin/sandbox-exec` itself takes root.
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// Sets the job's environment inside the sandbox (`env -i`: nothing else).
const ENV: &str = "/usr/bin/env";

/// The fixed part of every profile. Written for this project after reading the base profiles of
/// Codex (`seatbelt_base_policy.sbpl`, itself derived from Chromium's `common.sb`) and Bazel's
/// darwin sandbox; kept to what ordinary command-line tools need.
const BASE_PROFILE: &str = r#"(version 1)
; Nothing is allowed unless a rule below allows it; for file rules the last match wins.
(deny default)
; Shells start programs; children inherit this profile.
(allow process-exec)
(allow process-fork)
; `kill`, `wait` and `ps` on the job's own processes, not on anything outside it.
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
; Hardware, OS version and limits, read by runtimes and build tools at start-up. Named one by
; one (after Chromium and Codex) because a blanket sysctl-read includes kern.procargs2: the
; arguments and environment of the user's other processes, Reasonix's own API keys among them.
(allow sysctl-read
  (sysctl-name-prefix "hw.")
  (sysctl-name-prefix "machdep.cpu.")
  (sysctl-name "kern.argmax")
  (sysctl-name "kern.boottime")
  (sysctl-name "kern.hostname")
  (sysctl-name "kern.maxfiles")
  (sysctl-name "kern.maxfilesperproc")
  (sysctl-name "kern.maxproc")
  (sysctl-name "kern.ngroups")
  (sysctl-name "kern.osproductversion")
  (sysctl-name "kern.osrelease")
  (sysctl-name "kern.ostype")
  (sysctl-name "kern.osvariant_status")
  (sysctl-name "kern.osversion")
  (sysctl-name "kern.secure_kernel")
  (sysctl-name "kern.usrstack64")
  (sysctl-name "kern.version")
  (sysctl-name-prefix "kern.proc.pgrp.")
  (sysctl-name-prefix "kern.proc.pid.")
  (sysctl-name "sysctl.proc_cputype")
  (sysctl-name "vm.loadavg"))
; CoreFoundation-based tools read preferences; writing them is not allowed.
(allow user-preference-read)
; User and group lookups (getpwuid, getgrouplist): `id`, `whoami`, `git`, `ssh`, `ls -l`.
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.opendirectoryd.membership"))
; Named POSIX semaphores: Python's multiprocessing locks.
(allow ipc-posix-sem)
; The whole filesystem is readable, except what is denied further down.
(allow file-read*)
; `>/dev/null`, `>/dev/stderr` (an already open descriptor), and dyld's probe of
; /dev/dtracehelper at every process start.
(allow file-write-data
  (literal "/dev/null")
  (literal "/dev/dtracehelper")
  (subpath "/dev/fd"))
"#;

/// After the writable roots, so that no `allow_write` entry can reopen it.
const NO_TERMINAL: &str = r#"; No terminal: the job's input is /dev/null and its output a pipe, and it must not read the
; user's keystrokes or push input into the terminal through /dev/tty.
(deny file-read* file-write* file-ioctl
  (literal "/dev/tty")
  (regex #"^/dev/ttys[0-9]+$")
  (literal "/dev/ptmx"))
"#;

/// With `[sandbox] network = true`: any connection, plus the services macOS resolves names and
/// checks TLS certificates through (after Codex's and Chromium's `network.sb`).
const NETWORK_PROFILE: &str = r#"; [sandbox] network = true
(allow network-outbound network-inbound network-bind)
(allow system-socket)
(allow mach-lookup
  (global-name "com.apple.SystemConfiguration.DNSConfiguration")
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.networkd")
  (global-name "com.apple.SecurityServer")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.ocspd"))
; Interface and route lists (getifaddrs).
(allow sysctl-read (sysctl-name-prefix "net.routetable."))
"#;

/// How a denied path is matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Match {
    /// The path and everything under it: a directory, or a path that does not exist yet (what
    /// is created there later stays hidden, whichever kind it is).
    Subpath,
    /// Exactly this path: an existing file.
    Literal,
}

impl Match {
    fn filter(self) -> &'static str {
        match self {
            Match::Subpath => "subpath",
            Match::Literal => "literal",
        }
    }
}

/// The paths one job's profile is about, resolved against the filesystem when it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Layout {
    /// Writable roots, canonical: the workspace, the temp dir, then the existing `allow_write`
    /// directories. Each also gets unix-domain sockets, so local IPC under them works without
    /// the network (parity with bubblewrap, where socket files are outside the net namespace).
    /// The workspace and `allow_write` are writable only for a plugin granted
    /// `workspace = read-write` (`workspace_writable`); otherwise `allow_write` is empty.
    workspace: PathBuf,
    workspace_writable: bool,
    temp: PathBuf,
    allow_write: Vec<PathBuf>,
    /// Protected configuration paths, each as written and canonical: no writes, no creation.
    protected: Vec<PathBuf>,
    /// `forbid_read` paths, each as written and canonical (deduplicated): no reads, no writes.
    forbid: Vec<(PathBuf, Match)>,
    /// Package folders inside Reasonix's own directories that the job may read (after the
    /// forbid rules, so they win for reads only).
    revealed: Vec<PathBuf>,
    /// Directories inside a writable root that lead to a forbidden path: they may not be renamed
    /// or removed, which would move the forbidden path out from under its deny rule.
    guards: Vec<PathBuf>,
    network: bool,
}

impl Layout {
    fn resolve(policy: &SandboxPolicy, temp: &Path, workspace_writable: bool) -> Layout {
        let workspace = real_path(&policy.workspace);
        let temp = real_path(temp);
        let mut allow_write: Vec<PathBuf> = Vec::new();
        let extra = policy.allow_write.iter().filter(|_| workspace_writable);
        for root in extra.filter(|r| r.is_dir()) {
            let root = real_path(root);
            if root != workspace && root != temp && !allow_write.contains(&root) {
                allow_write.push(root);
            }
        }
        let mut forbid: Vec<(PathBuf, Match)> = Vec::new();
        for path in &policy.forbid_read {
            for spelling in [path.clone(), real_path(path)] {
                if forbid.iter().any(|(p, _)| *p == spelling) {
                    continue;
                }
                let kind = if spelling.exists() && !spelling.is_dir() {
                    Match::Literal
                } else {
                    Match::Subpath
                };
                forbid.push((spelling, kind));
            }
        }
        let mut protected: Vec<PathBuf> = Vec::new();
        for path in &policy.protected {
            for spelling in [path.clone(), real_path(path)] {
                if !protected.contains(&spelling) {
                    protected.push(spelling);
                }
            }
        }
        let roots: Vec<&PathBuf> = [&workspace, &temp]
            .into_iter()
            .filter(|r| workspace_writable || *r == &temp)
            .chain(&allow_write)
            .collect();
        let mut guards: Vec<PathBuf> = Vec::new();
        for path in forbid.iter().map(|(p, _)| p).chain(&protected) {
            for dir in path.ancestors().skip(1) {
                if roots.iter().any(|root| dir.starts_with(root))
                    && !guards.iter().any(|g| g == dir)
                {
                    guards.push(dir.to_path_buf());
                }
            }
        }
        let revealed = policy
            .revealed
            .iter()
            .filter(|p| policy.hidden.iter().any(|h| p.starts_with(h)))
            .map(|p| real_path(p))
            .collect();
        Layout {
            workspace,
            workspace_writable,
            temp,
            allow_write,
            protected,
            forbid,
            revealed,
            guards,
            network: policy.network,
        }
    }

    /// The profile text and the `(key, path)` parameters it refers to.
    fn profile(&self) -> (String, Vec<(String, &Path)>) {
        let mut params: Vec<(String, &Path)> = Vec::new();
        if self.workspace_writable {
            params.push(("WORKSPACE".to_string(), &self.workspace));
        }
        params.push(("TMP".to_string(), &self.temp));
        params.extend(
            self.allow_write
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("WRITE_{i}"), p.as_path())),
        );
        let writable: Vec<String> = params.iter().map(|(key, _)| key.clone()).collect();

        let mut text = String::from(BASE_PROFILE);
        text.push_str(
            "; The workspace, the job's temp dir and the `allow_write` roots.\n(allow file-write*",
        );
        for key in &writable {
            text.push_str(&format!("\n  (subpath (param \"{key}\"))"));
        }
        text.push_str(")\n");
        for key in &writable {
            text.push_str(&format!(
                "(allow network-bind (local unix-socket (subpath (param \"{key}\"))))\n\
                 (allow network-outbound (remote unix-socket (subpath (param \"{key}\"))))\n"
            ));
        }
        text.push_str(NO_TERMINAL);
        if !self.protected.is_empty() {
            text.push_str(
                "; Configuration Reasonix reads: never written or created by a job.\n\
                 (deny file-write*",
            );
            for (i, path) in self.protected.iter().enumerate() {
                let key = format!("PROTECTED_{i}");
                text.push_str(&format!("\n  (subpath (param \"{key}\"))"));
                params.push((key, path));
            }
            text.push_str(")\n");
        }
        if !self.forbid.is_empty() {
            text.push_str(
                "; `[sandbox] forbid_read`, after the allows so it wins: not readable, not writable.\n\
                 (deny file-read* file-write*",
            );
            for (i, (path, kind)) in self.forbid.iter().enumerate() {
                let key = format!("FORBID_{i}");
                text.push_str(&format!("\n  ({} (param \"{key}\"))", kind.filter()));
                params.push((key, path));
            }
            text.push_str(")\n");
        }
        if !self.revealed.is_empty() {
            text.push_str(
                "; Installed packages a user-agreed hook runs from: readable (only) inside Reasonix's own directories.\n\
                 (allow file-read*",
            );
            for (i, path) in self.revealed.iter().enumerate() {
                let key = format!("REVEAL_{i}");
                text.push_str(&format!("\n  (subpath (param \"{key}\"))"));
                params.push((key, path));
            }
            text.push_str(")\n");
        }
        if !self.guards.is_empty() {
            text.push_str(
                "; Writable directories above a forbidden path keep their place.\n(deny file-write*",
            );
            for (i, path) in self.guards.iter().enumerate() {
                let key = format!("GUARD_{i}");
                text.push_str(&format!("\n  (literal (param \"{key}\"))"));
                params.push((key, path));
            }
            text.push_str(")\n");
        }
        if self.network {
            text.push_str(NETWORK_PROFILE);
        }
        (text, params)
    }

    /// `-p <profile> -D KEY=path… -- program args…`: the arguments after `sandbox-exec`.
    fn args(&self, program: &OsStr, program_args: &[OsString]) -> Vec<OsString> {
        let (profile, params) = self.profile();
        let mut args: Vec<OsString> = vec!["-p".into(), profile.into()];
        for (key, path) in params {
            let mut define = OsString::from(key);
            define.push("=");
            define.push(path);
            args.extend(["-D".into(), define]);
        }
        args.push("--".into());
        args.push(program.into());
        args.extend(program_args.iter().cloned());
        args
    }
}

/// Arguments for [`SANDBOX_EXEC`] running `program args` under `policy` with exactly the
/// variables of `env`, `temp` being the job's private temporary directory. The workspace and
/// `allow_write` are writable only when `workspace_writable`. The working directory is set on
/// the command itself.
pub fn args(
    policy: &SandboxPolicy,
    temp: &Path,
    workspace_writable: bool,
    env: &JobEnv,
    program: &str,
    program_args: &[String],
) -> Result<Vec<OsString>, types::Error> {
    // `env` takes its first operand without `=` for the program.
    if program.contains('=') {
        return Err(types::Error::InvalidInput(format!(
            "`program` `{program}` contains `=`; give its path without it"
        )));
    }
    let mut command: Vec<OsString> = vec!["-i".into()];
    for (name, value) in env.vars() {
        let mut pair = OsString::from(name);
        pair.push("=");
        pair.push(value);
        command.push(pair);
    }
    command.push(program.into());
    command.extend(program_args.iter().map(OsString::from));
    Ok(Layout::resolve(policy, temp, workspace_writable).args(ENV.as_ref(), &command))
}

/// Run `sandbox-exec` once with a trivial profile, then once with the profile jobs use (so a
/// rule this macOS does not understand shows up here, not as every command failing). `Err`
/// says why Seatbelt cannot be used.
pub fn self_check() -> Result<PathBuf, String> {
    let trivial: Vec<OsString> = ["-p", "(version 1)(allow default)", "--", "/usr/bin/true"]
        .into_iter()
        .map(OsString::from)
        .collect();
    run(&trivial).map_err(|why| format!("Seatbelt (`{SANDBOX_EXEC}`) {why}"))?;
    // One rule of every form the builder writes, so that all of them are parsed here.
    let scratch = real_path(&std::env::temp_dir());
    let probe = scratch.join(".reasonix-seatbelt-check");
    let layout = Layout {
        workspace: scratch.clone(),
        workspace_writable: true,
        temp: scratch.clone(),
        allow_write: vec![scratch.clone()],
        protected: vec![probe.clone()],
        forbid: vec![
            (probe.clone(), Match::Subpath),
            (probe.clone(), Match::Literal),
        ],
        revealed: vec![probe],
        guards: vec![scratch],
        network: true,
    };
    run(&layout.args(ENV.as_ref(), &["-i".into(), "/usr/bin/true".into()])).map_err(|why| {
        format!(
            "Seatbelt works, but the Reasonix sandbox profile does not: `{SANDBOX_EXEC}` {why}. \
             Please report this with your macOS version"
        )
    })?;
    Ok(PathBuf::from(SANDBOX_EXEC))
}

fn run(args: &[OsString]) -> Result<(), String> {
    let out = Command::new(SANDBOX_EXEC)
        .args(args)
        .env_clear()
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "does not work here ({}: {})",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err("is not installed".to_string()),
        Err(e) => Err(format!("cannot be started: {e}")),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::os::unix::ffi::{OsStrExt, OsStringExt};

    /// `sandbox-exec` arguments taken apart: the profile, the `-D` definitions in order, and
    /// what follows `--`. Panics when the shape is anything else.
    fn split(args: &[OsString]) -> (String, Vec<(String, OsString)>, Vec<OsString>) {
        assert_eq!(args[0], "-p");
        let profile = args[1].to_str().unwrap().to_string();
        let mut defines = Vec::new();
        let mut i = 2;
        while args[i] == "-D" {
            let define = args[i + 1].as_bytes();
            let eq = define.iter().position(|b| *b == b'=').unwrap();
            let key = String::from_utf8(define[..eq].to_vec()).unwrap();
            defines.push((key, OsString::from_vec(define[eq + 1..].to_vec())));
            i += 2;
        }
        assert_eq!(args[i], "--", "{args:?}");
        (profile, defines, args[i + 1..].to_vec())
    }

    fn policy(
        workspace: &Path,
        allow_write: Vec<PathBuf>,
        forbid_read: Vec<PathBuf>,
    ) -> SandboxPolicy {
        SandboxPolicy::for_test(workspace, allow_write, forbid_read)
    }

    fn define<'a>(defines: &'a [(String, OsString)], key: &str) -> Option<&'a OsString> {
        defines.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    #[test]
    fn profile_denies_by_default_and_opens_only_the_roots() {
        let base = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(base.path()).unwrap();
        let (ws, temp, out) = (base.join("ws"), base.join("tmp"), base.join("out"));
        for dir in [&ws, &temp, &out, &ws.join("secret-dir")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(ws.join("secret.txt"), "x").unwrap();
        let p = policy(
            &ws,
            vec![out.clone(), base.join("missing"), ws.clone()],
            vec![
                ws.join("secret-dir"),
                ws.join("secret.txt"),
                ws.join("gone"),
            ],
        );
        let args = args(
            &p,
            &temp,
            true,
            &JobEnv::default(),
            "bash",
            &["-c".into(), "echo hi".into()],
        )
        .unwrap();
        let (profile, defines, command) = split(&args);

        assert!(profile.starts_with("(version 1)\n"));
        assert!(profile.contains("\n(deny default)\n"));
        let keys: Vec<&str> = defines.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "WORKSPACE",
                "TMP",
                "WRITE_0",
                "FORBID_0",
                "FORBID_1",
                "FORBID_2",
                "GUARD_0"
            ]
        );
        assert_eq!(define(&defines, "WORKSPACE").unwrap(), ws.as_os_str());
        assert_eq!(define(&defines, "TMP").unwrap(), temp.as_os_str());
        // Only the existing root outside the workspace; `missing` is not there.
        assert_eq!(define(&defines, "WRITE_0").unwrap(), out.as_os_str());
        assert_eq!(
            define(&defines, "FORBID_0").unwrap(),
            ws.join("secret-dir").as_os_str()
        );
        assert_eq!(
            define(&defines, "FORBID_1").unwrap(),
            ws.join("secret.txt").as_os_str()
        );
        assert_eq!(
            define(&defines, "FORBID_2").unwrap(),
            ws.join("gone").as_os_str()
        );
        assert_eq!(define(&defines, "GUARD_0").unwrap(), ws.as_os_str());

        let writes = "(allow file-write*\n  (subpath (param \"WORKSPACE\"))\n  (subpath (param \"TMP\"))\n  (subpath (param \"WRITE_0\")))";
        let forbids = "(deny file-read* file-write*\n  (subpath (param \"FORBID_0\"))\n  (literal (param \"FORBID_1\"))\n  (subpath (param \"FORBID_2\")))";
        let guards = "(deny file-write*\n  (literal (param \"GUARD_0\")))";
        let at = |needle: &str| {
            profile
                .find(needle)
                .unwrap_or_else(|| panic!("{needle} not in\n{profile}"))
        };
        // Seatbelt applies the last matching rule: the denials must come after the allows.
        assert!(at("(allow file-read*)") < at(forbids));
        assert!(at(writes) < at(forbids));
        assert!(at(writes) < at(guards));
        assert!(at(writes) < at("(literal \"/dev/tty\")"));
        // A blanket sysctl-read would expose other processes' environments (kern.procargs2).
        for line in profile.lines().filter(|l| l.contains("sysctl-read")) {
            assert!(!line.ends_with("(allow sysctl-read)"), "{line}");
        }
        assert_eq!(profile.matches("(allow file-write*").count(), 1);
        assert!(
            profile
                .contains("(allow network-bind (local unix-socket (subpath (param \"WRITE_0\"))))")
        );
        assert!(!profile.contains("(allow network-outbound network-inbound"));
        assert!(!profile.contains("system-socket"));
        assert_eq!(command, ["/usr/bin/env", "-i", "bash", "-c", "echo hi"]);
    }

    #[test]
    fn network_rules_are_present_only_with_network() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = policy(dir.path(), vec![], vec![]);
        let (closed, _, _) =
            split(&args(&p, dir.path(), true, &JobEnv::default(), "sh", &[]).unwrap());
        p.network = true;
        let (open, _, _) =
            split(&args(&p, dir.path(), true, &JobEnv::default(), "sh", &[]).unwrap());
        for rule in [
            "(allow network-outbound network-inbound network-bind)",
            "(allow system-socket)",
            "com.apple.trustd.agent",
        ] {
            assert!(open.contains(rule), "{rule}");
            assert!(!closed.contains(rule), "{rule}");
        }
        assert!(open.starts_with(&closed));
    }

    #[test]
    fn forbidden_paths_are_denied_as_written_and_resolved() {
        let base = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(base.path()).unwrap();
        let (ws, real) = (base.join("ws"), base.join("real"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(real.join("keys")).unwrap();
        std::os::unix::fs::symlink(&real, base.join("alias")).unwrap();
        std::os::unix::fs::symlink(&real, ws.join("link")).unwrap();
        let p = policy(
            &ws,
            vec![],
            vec![
                base.join("alias/keys"),
                // Does not exist: resolved through its existing ancestor.
                base.join("alias/later/file"),
                // The same directory under a third name: listed once.
                real.join("keys"),
                ws.join("link/keys"),
            ],
        );
        let (profile, defines, _) =
            split(&args(&p, &ws, true, &JobEnv::default(), "sh", &[]).unwrap());
        let forbids: Vec<&OsString> = defines
            .iter()
            .filter(|(k, _)| k.starts_with("FORBID_"))
            .map(|(_, v)| v)
            .collect();
        assert_eq!(
            forbids,
            [
                base.join("alias/keys").as_os_str(),
                real.join("keys").as_os_str(),
                base.join("alias/later/file").as_os_str(),
                real.join("later/file").as_os_str(),
                ws.join("link/keys").as_os_str(),
            ]
        );
        for i in 0..5 {
            assert!(profile.contains(&format!("(subpath (param \"FORBID_{i}\"))")));
        }
        // `ws/link` lies in the workspace and leads to a forbidden path: it may not be moved.
        let guards: Vec<&OsString> = defines
            .iter()
            .filter(|(k, _)| k.starts_with("GUARD_"))
            .map(|(_, v)| v)
            .collect();
        assert_eq!(guards, [ws.join("link").as_os_str(), ws.as_os_str()]);
    }

    #[test]
    fn writable_roots_are_given_resolved() {
        let base = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(base.path()).unwrap();
        std::fs::create_dir_all(base.join("real-ws")).unwrap();
        std::fs::create_dir_all(base.join("real-out")).unwrap();
        std::os::unix::fs::symlink(base.join("real-ws"), base.join("ws")).unwrap();
        std::os::unix::fs::symlink(base.join("real-out"), base.join("out")).unwrap();
        let p = policy(
            &base.join("ws"),
            vec![base.join("out"), base.join("real-out")],
            vec![],
        );
        let (_, defines, _) =
            split(&args(&p, &base.join("ws"), true, &JobEnv::default(), "sh", &[]).unwrap());
        assert_eq!(
            defines,
            [
                (
                    "WORKSPACE".to_string(),
                    base.join("real-ws").into_os_string()
                ),
                ("TMP".to_string(), base.join("real-ws").into_os_string()),
                (
                    "WRITE_0".to_string(),
                    base.join("real-out").into_os_string()
                ),
            ]
        );
    }

    #[test]
    fn a_hostile_directory_name_stays_out_of_the_profile() {
        let base = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(base.path()).unwrap();
        let evil = "x\")) (allow default) ; \"\n(allow file-write* (subpath \"/";
        let ws = base.join(evil);
        std::fs::create_dir_all(ws.join(evil)).unwrap();
        let p = policy(&ws, vec![], vec![ws.join(evil)]);
        let args = args(
            &p,
            &ws,
            true,
            &JobEnv::default(),
            "sh",
            &["-c".into(), evil.into()],
        )
        .unwrap();
        let (profile, defines, command) = split(&args);
        assert!(!profile.contains(evil));
        assert!(!profile.contains("(allow default)"));
        assert_eq!(
            define(&defines, "FORBID_0").unwrap(),
            ws.join(evil).as_os_str()
        );
        assert_eq!(command, ["/usr/bin/env", "-i", "sh", "-c", evil]);
    }

    #[test]
    fn config_files_are_never_written_and_a_read_only_plugin_writes_only_temp() {
        let base = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(base.path()).unwrap();
        let (ws, temp, out) = (base.join("ws"), base.join("tmp"), base.join("out"));
        for dir in [&ws, &temp, &out, &ws.join(".claude")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(ws.join("reasonix.toml"), "").unwrap();
        let mut p = policy(&ws, vec![out.clone()], vec![]);
        p.protected = crate::sandbox::protected_paths(&ws);
        let mut env = JobEnv::default();
        env.set("PATH", "/usr/bin");
        env.set("A", "b=c d");
        let (profile, defines, command) =
            split(&args(&p, &temp, true, &env, "sh", &["-c".into(), "x".into()]).unwrap());
        // Missing ones (`.mcp.json`) too: a subpath rule also refuses creating them.
        let protected: Vec<&OsString> = defines
            .iter()
            .filter(|(k, _)| k.starts_with("PROTECTED_"))
            .map(|(_, v)| v)
            .collect();
        assert_eq!(
            protected,
            [
                ws.join("reasonix.toml").as_os_str(),
                ws.join(".reasonix").as_os_str(),
                ws.join(".mcp.json").as_os_str(),
                ws.join(".claude/settings.json").as_os_str(),
                ws.join(".claude/settings.local.json").as_os_str(),
            ]
        );
        let rule = "(deny file-write*\n  (subpath (param \"PROTECTED_0\"))";
        let writes = profile.find("(allow file-write*\n").unwrap();
        assert!(profile.find(rule).unwrap() > writes, "{profile}");
        // `.claude` leads to a protected file: it may not be renamed away.
        let guards: Vec<&OsString> = defines
            .iter()
            .filter(|(k, _)| k.starts_with("GUARD_"))
            .map(|(_, v)| v)
            .collect();
        assert_eq!(guards, [ws.as_os_str(), ws.join(".claude").as_os_str()]);
        // The environment is set inside the sandbox, by `env -i`.
        assert_eq!(
            command,
            [
                "/usr/bin/env",
                "-i",
                "PATH=/usr/bin",
                "A=b=c d",
                "sh",
                "-c",
                "x"
            ]
        );

        // `workspace = read`: only the temp dir is writable.
        let (profile, defines, _) = split(&args(&p, &temp, false, &env, "sh", &[]).unwrap());
        let keys: Vec<&str> = defines
            .iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| !k.starts_with("PROTECTED_"))
            .collect();
        assert_eq!(keys, ["TMP"]);
        assert!(profile.contains("(allow file-write*\n  (subpath (param \"TMP\")))"));
        assert!(matches!(
            args(&p, &temp, true, &env, "a=b", &[]),
            Err(types::Error::InvalidInput(_))
        ));
    }

    #[cfg(not(target_os = "macos"))]
    #[test]
    fn self_check_says_sandbox_exec_is_missing() {
        let err = self_check().unwrap_err();
        assert_eq!(err, "Seatbelt (`/usr/bin/sandbox-exec`) is not installed");
    }

    /// Any path bytes but `/` and NUL in a component.
    fn component() -> impl Strategy<Value = OsString> {
        proptest::collection::vec(
            any::<u8>().prop_filter("not / or NUL", |b| *b != b'/' && *b != 0),
            1..24,
        )
        .prop_map(OsString::from_vec)
    }

    fn layout_with(names: &[OsString], network: bool) -> Layout {
        let path = |i: usize| {
            Path::new("/")
                .join(&names[i % names.len()])
                .join(format!("{i}"))
        };
        Layout {
            workspace: path(0),
            workspace_writable: true,
            temp: path(1),
            allow_write: vec![path(2), path(3)],
            protected: vec![path(7)],
            forbid: vec![(path(4), Match::Subpath), (path(5), Match::Literal)],
            revealed: vec![path(8)],
            guards: vec![path(6)],
            network,
        }
    }

    proptest! {
        /// The profile text is a function of the layout's shape only; each path reaches
        /// `sandbox-exec` exactly once, whole, as the value of its own `-D`.
        #[test]
        fn paths_only_ever_travel_as_parameters(
            names in proptest::collection::vec(component(), 1..7),
            network in any::<bool>(),
        ) {
            let layout = layout_with(&names, network);
            let args = layout.args("prog".as_ref(), &["a".into()]);
            let (profile, defines, command) = split(&args);
            let (plain, _, _) = split(&layout_with(&["plain".into()], network).args("prog".as_ref(), &[]));
            prop_assert_eq!(&profile, &plain);
            let expected: Vec<&Path> = [&layout.workspace, &layout.temp]
                .into_iter()
                .chain(&layout.allow_write)
                .chain(&layout.protected)
                .chain(layout.forbid.iter().map(|(p, _)| p))
                .chain(&layout.revealed)
                .chain(&layout.guards)
                .map(PathBuf::as_path)
                .collect();
            let values: Vec<&Path> = defines.iter().map(|(_, v)| Path::new(v)).collect();
            prop_assert_eq!(values, expected);
            prop_assert_eq!(args.len(), 2 + 2 * defines.len() + 1 + 2);
            prop_assert_eq!(command, ["prog", "a"]);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// The same through real directories with arbitrary names.
        #[test]
        fn real_directories_with_any_name_change_no_profile_text(
            names in proptest::collection::vec("[^/\u{0}]{1,20}", 3),
        ) {
            let base = tempfile::tempdir().unwrap();
            let base = std::fs::canonicalize(base.path()).unwrap();
            let build = |names: &[String]| {
                let ws = base.join(format!("w{}", names[0]));
                let out = base.join(format!("o{}", names[1]));
                let secret = ws.join(format!("s{}", names[2]));
                let temp = base.join(format!("t{}", names[0]));
                for dir in [&ws, &out, &secret, &temp] {
                    std::fs::create_dir_all(dir).unwrap();
                }
                let p = policy(&ws, vec![out.clone()], vec![secret.clone()]);
                (args(&p, &temp, true, &JobEnv::default(), "sh", &[]).unwrap(), [ws.clone(), temp, out, secret, ws])
            };
            let (args, paths) = build(&names);
            let (profile, defines, _) = split(&args);
            let (plain, _, _) = split(&build(&["p".into(), "p".into(), "p".into()]).0);
            prop_assert_eq!(&profile, &plain);
            let values: Vec<PathBuf> = defines.into_iter().map(|(_, v)| PathBuf::from(v)).collect();
            prop_assert_eq!(values, paths.to_vec());
        }
    }
}
