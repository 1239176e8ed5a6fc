//! Where an open descriptor really is: the identity the guard checks, whatever path string
//! (and symlinks) led to it.

use std::io;
use std::path::PathBuf;
use wasmtime_wasi::filesystem::Descriptor;

/// The current absolute path of the file or directory behind `descriptor`.
pub(crate) fn descriptor_path(descriptor: &Descriptor) -> io::Result<PathBuf> {
    let file = match descriptor {
        Descriptor::File(f) => &f.file,
        Descriptor::Dir(d) => &d.dir,
    };
    fd_path(file)
}

#[cfg(target_os = "linux")]
fn fd_path(file: &std::fs::File) -> io::Result<PathBuf> {
    use std::os::fd::AsRawFd;
    // The kernel's record of what this descriptor refers to (not a string we were given).
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
}

#[cfg(target_vendor = "apple")]
fn fd_path(file: &std::fs::File) -> io::Result<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let path = rustix::fs::getpath(file)?;
    Ok(PathBuf::from(std::ffi::OsString::from_vec(
        path.into_bytes(),
    )))
}

#[cfg(not(any(target_os = "linux", target_vendor = "apple")))]
fn fd_path(_file: &std::fs::File) -> io::Result<PathBuf> {
    // No way to ask: the guard fails closed where it has to check.
    Err(io::Error::from(io::ErrorKind::Unsupported))
}
