//! Output files: where grotto writes, and how it gets there without
//! harming what was there before.
//!
//! Every file grotto produces (graph files, result tables, text exports,
//! generated edge lists) is opened through [`Output::create`], before any
//! work is done, so that a bad destination fails at once:
//!
//! - **What the path names.** A directory, block device or socket is
//!   refused. A character device or FIFO (and `-` or `/dev/stdout`) is
//!   written through when the command can stream its output (text export,
//!   run results, generated edge lists) and refused when it cannot (graph
//!   files, which need seeking). A symlink is followed: the file it names
//!   is the one replaced, and the link stays. A regular file is replaced
//!   atomically and keeps its permission bits; a new file gets 0666 less
//!   the umask, as any file the user creates.
//! - **Never an input.** A target that is one of the command's inputs is
//!   refused, compared by device and inode so that hard links, symlinks
//!   and `/dev/stdout` redirected onto an input count too.
//! - **Atomic, and no litter.** A regular-file target is written to an
//!   unnamed temporary file (`O_TMPFILE`) in the target's directory; on
//!   [`Output::commit`] it is fsynced, linked under a temporary name and
//!   renamed over the target in one step, and the directory is fsynced. A
//!   crash, `kill -9` or Ctrl-C at any point leaves the old file (or none)
//!   and nothing else: an unnamed file vanishes with its process; only a
//!   `kill -9` between the link and the rename (Linux cannot link over an
//!   existing name) leaves the temporary name, which the next output in
//!   the directory sweeps, its writer's lock being free. Where the
//!   file system refuses `O_TMPFILE` the file is named
//!   `.NAME.grotto-XXXXXX.tmp` from the start. Named temporaries hold an
//!   `flock` for their writer's life and are listed in a process-wide
//!   registry: the CLI's signal handler removes them
//!   ([`exit_removing_temporaries`]), and the next output created in the
//!   same directory removes those whose lock is free (their writer is
//!   gone), never a live writer's.
//!
//! The protocol on the registry: an entry is added under its lock when a
//! named temporary appears and removed under the same lock after the
//! rename (or unlink) that ends its name, so a signal that takes the lock
//! sees every name that exists and no name that is already the target.

use crate::error::{Error, Result};
use std::ffi::CString;
use std::fs::{File, Metadata, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

/// Whether a command can write its output through a stream (standard
/// output, a FIFO, a character device) instead of a regular file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Streams {
    /// Text that is produced in order: stream it where the user points.
    Allowed,
    /// A file that is written out of order (a graph): regular files only.
    Refused,
}

/// What an output path names, decided before any work is done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A regular file, existing or not, at this path (symlinks resolved).
    File(PathBuf),
    /// The process's standard output (`-`, `/dev/stdout`).
    Stdout,
    /// A character device or a FIFO, written through.
    Device(PathBuf),
}

/// Longest chain of symlinks followed (the kernel's own limit).
const MAX_LINK_HOPS: usize = 40;
/// Named temporaries younger than this are never swept: their writer may
/// be between creating the file and locking it.
const SWEEP_MIN_AGE: Duration = Duration::from_secs(2);
/// The part of a temporary's name that marks it as grotto's.
const TEMP_MARK: &str = ".grotto-";
const TEMP_SUFFIX: &str = ".tmp";

fn refused(path: &Path, what: impl Into<String>) -> Error {
    Error::Refused {
        path: path.to_path_buf(),
        what: what.into(),
    }
}

/// True for the names of standard output.
fn is_stdout_name(path: &Path) -> bool {
    let s = path.as_os_str().as_bytes();
    matches!(s, b"-" | b"/dev/stdout" | b"/dev/fd/1" | b"/proc/self/fd/1")
}

/// Decides what `path` names: see the module documentation.
pub fn resolve_target(path: &Path) -> Result<Target> {
    if is_stdout_name(path) {
        return Ok(Target::Stdout);
    }
    if path.as_os_str().is_empty() {
        return Err(refused(path, "an empty output path"));
    }
    if path.as_os_str().as_bytes().ends_with(b"/") {
        return Err(refused(
            path,
            "ends in /, which names a directory; give a file name for the output",
        ));
    }
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINK_HOPS {
        let m = match std::fs::symlink_metadata(&p) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Target::File(p)),
            Err(e) => return Err(Error::io(&p, "look at the output path", e)),
        };
        if !m.file_type().is_symlink() {
            return classify(&p, &m);
        }
        // The kernel's magic links (/proc/PID/fd/N) name open files whose
        // link text is no path: ask the kernel what they lead to.
        if p.starts_with("/proc") {
            let m =
                std::fs::metadata(&p).map_err(|e| Error::io(&p, "follow the output path", e))?;
            return match classify(&p, &m)? {
                Target::File(_) => Err(refused(
                    path,
                    "names an open file through /proc; give its path instead",
                )),
                t => Ok(t),
            };
        }
        let link = std::fs::read_link(&p).map_err(|e| Error::io(&p, "read the symlink", e))?;
        p = match p.parent() {
            Some(dir) => dir.join(link),
            None => link,
        };
    }
    Err(refused(path, "too many levels of symbolic links"))
}

fn classify(p: &Path, m: &Metadata) -> Result<Target> {
    let t = m.file_type();
    if t.is_file() {
        Ok(Target::File(p.to_path_buf()))
    } else if t.is_dir() {
        Err(refused(
            p,
            "is a directory; give a file name for the output",
        ))
    } else if t.is_char_device() || t.is_fifo() {
        Ok(Target::Device(p.to_path_buf()))
    } else if t.is_block_device() {
        Err(refused(
            p,
            "is a block device; grotto never writes to a disk directly",
        ))
    } else {
        Err(refused(
            p,
            "is a socket or other special file, not a file grotto can write",
        ))
    }
}

fn same_file(a: &Metadata, b: &Metadata) -> bool {
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Refuses `out` (whose metadata is `m`) if it is one of `inputs`.
fn check_inputs(out: &Path, m: &Metadata, inputs: &[&Path]) -> Result<()> {
    for input in inputs {
        if let Ok(im) = std::fs::metadata(input) {
            if same_file(m, &im) {
                return Err(refused(
                    out,
                    format!(
                        "is the input {} (same file); write the output somewhere else",
                        input.display()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A destination opened for writing: a temporary file that becomes the
/// target on [`Output::commit`], or a stream written through.
pub struct Output {
    /// The path as the user gave it (for messages).
    given: PathBuf,
    target: Target,
    file: File,
    /// For a regular-file target: how the temporary becomes the target.
    temp: Option<Temp>,
}

struct Temp {
    /// The target path, symlinks resolved.
    path: PathBuf,
    /// The directory the target lives in.
    dir: PathBuf,
    /// The temporary's name once it has one (from the start when the file
    /// system refused an unnamed file).
    named: Option<PathBuf>,
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output")
            .field("target", &self.target)
            .finish()
    }
}

impl Output {
    /// Checks `path` and opens it for writing before any work is done:
    /// refuses what may not be written (see the module documentation),
    /// refuses any of `inputs`, and creates the temporary file, so an
    /// unwritable directory fails here and not after the work.
    pub fn create(path: &Path, inputs: &[&Path], streams: Streams) -> Result<Output> {
        let target = resolve_target(path)?;
        match &target {
            Target::Stdout => {
                if streams == Streams::Refused {
                    return Err(refused(
                        path,
                        "standard output cannot hold this output (it is written out of order); give a file name",
                    ));
                }
                let fd = std::os::fd::AsFd::as_fd(&std::io::stdout())
                    .try_clone_to_owned()
                    .map_err(|e| Error::io(path, "duplicate standard output", e))?;
                let file = File::from(fd);
                if let Ok(m) = file.metadata() {
                    if m.is_file() {
                        check_inputs(path, &m, inputs)?;
                    }
                }
                Ok(Output {
                    given: path.to_path_buf(),
                    target,
                    file,
                    temp: None,
                })
            }
            Target::Device(p) => {
                let m = std::fs::metadata(p).map_err(|e| Error::io(p, "stat output", e))?;
                if streams == Streams::Refused {
                    return Err(refused(
                        path,
                        format!(
                            "is a {}; this output is written out of order and needs a regular file",
                            if m.file_type().is_fifo() {
                                "FIFO"
                            } else {
                                "character device"
                            }
                        ),
                    ));
                }
                let file = OpenOptions::new()
                    .write(true)
                    .open(p)
                    .map_err(|e| Error::io(p, "open output for writing", e))?;
                Ok(Output {
                    given: path.to_path_buf(),
                    target,
                    file,
                    temp: None,
                })
            }
            Target::File(p) => {
                let existing = match std::fs::metadata(p) {
                    Ok(m) => {
                        check_inputs(path, &m, inputs)?;
                        Some(m)
                    }
                    Err(_) => None,
                };
                let dir = match p.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                    _ => PathBuf::from("."),
                };
                let name = p
                    .file_name()
                    .ok_or_else(|| refused(path, "names no file (it ends in .. or /)"))?
                    .to_string_lossy()
                    .into_owned();
                sweep_stale(&dir);
                let (file, named) = create_temp(&dir, &name).map_err(|e| {
                    Error::io(
                        path,
                        format!(
                            "create a file in {} (is the directory there and writable?)",
                            dir.display()
                        ),
                        e,
                    )
                })?;
                if let Some(m) = &existing {
                    // The replacement keeps the permission bits of the file it replaces.
                    let _ =
                        file.set_permissions(std::fs::Permissions::from_mode(m.mode() & 0o7777));
                }
                Ok(Output {
                    given: path.to_path_buf(),
                    target: Target::File(p.clone()),
                    file,
                    temp: Some(Temp {
                        path: p.clone(),
                        dir,
                        named,
                    }),
                })
            }
        }
    }

    /// The output path as the user gave it.
    pub fn path(&self) -> &Path {
        &self.given
    }

    /// What the output path named.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// True when the output goes to standard output.
    pub fn is_stdout(&self) -> bool {
        self.target == Target::Stdout
    }

    /// The file to write (the temporary for a regular-file target).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// A path that opens this output's file again while it is open: the
    /// temporary's name, or for an unnamed temporary its descriptor's
    /// entry under `/proc/self/fd`. For a scratch file that is read and
    /// then dropped without a commit (it never gets the target's name,
    /// and vanishes with its descriptor or, named, with the process's
    /// temporaries).
    pub fn reopen_path(&self) -> PathBuf {
        match &self.temp {
            Some(Temp { named: Some(n), .. }) => n.clone(),
            _ => PathBuf::from(format!("/proc/self/fd/{}", self.file.as_raw_fd())),
        }
    }

    /// The same file opened again with extra `open` flags (`O_DIRECT`),
    /// through /proc so that an unnamed temporary can be reopened too.
    pub fn reopen(&self, flags: i32) -> std::io::Result<File> {
        OpenOptions::new()
            .write(true)
            .custom_flags(flags)
            .open(format!("/proc/self/fd/{}", self.file.as_raw_fd()))
    }

    /// Makes the output final: for a regular-file target, fsync, link and
    /// rename the temporary over the target, fsync the directory. For a
    /// stream there is nothing left to do.
    pub fn commit(mut self) -> Result<()> {
        let Some(t) = self.temp.take() else {
            return Ok(());
        };
        self.file
            .sync_all()
            .map_err(|e| Error::io(&t.path, "fsync", e))?;
        // From here a stop waits: the output replaces the target, and the
        // command reports success.
        let _committing = crate::interrupt::commit_point()?;
        let mut reg = registry();
        let named = match &t.named {
            Some(n) => n.clone(),
            None => {
                let n = link_unnamed(&self.file, &t.dir, &t.path)
                    .map_err(|e| Error::io(&t.path, "link the finished output", e))?;
                reg.push(n.clone());
                n
            }
        };
        let renamed = std::fs::rename(&named, &t.path);
        if renamed.is_err() {
            let _ = std::fs::remove_file(&named);
        }
        reg.retain(|x| x != &named);
        drop(reg);
        renamed.map_err(|e| Error::io(&t.path, "rename the temporary file onto the target", e))?;
        if let Ok(d) = File::open(&t.dir) {
            // Makes the rename durable; a failure here leaves a valid file.
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        // Not committed: a named temporary goes away, an unnamed one
        // vanishes when its descriptor closes.
        if let Some(Temp { named: Some(n), .. }) = self.temp.take() {
            let mut reg = registry();
            let _ = std::fs::remove_file(&n);
            reg.retain(|x| x != &n);
        }
    }
}

static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn registry() -> MutexGuard<'static, Vec<PathBuf>> {
    TEMPORARIES.lock().unwrap_or_else(|p| p.into_inner())
}

/// Removes every named temporary file this process has open and exits
/// with `code`, holding the registry so that no new one appears in
/// between. For the CLI's SIGINT/SIGTERM handler.
pub fn exit_removing_temporaries(code: i32) -> ! {
    let reg = registry();
    for p in reg.iter() {
        let _ = std::fs::remove_file(p);
    }
    std::process::exit(code)
}

/// A fresh temporary name for `name` in `dir`.
fn temp_name(dir: &Path, name: &str) -> PathBuf {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut x = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
        ^ ((std::process::id() as u64) << 32)
        ^ COUNTER
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let tag: String = (0..6)
        .map(|_| {
            ALPHABET[(crate::rng::splitmix64(&mut x) % ALPHABET.len() as u64) as usize] as char
        })
        .collect();
    dir.join(format!(".{name}{TEMP_MARK}{tag}{TEMP_SUFFIX}"))
}

/// True for names of the form `.NAME.grotto-XXXXXX.tmp`.
fn is_temp_name(file_name: &[u8]) -> bool {
    let Some(rest) = file_name.strip_prefix(b".") else {
        return false;
    };
    let Some(rest) = rest.strip_suffix(TEMP_SUFFIX.as_bytes()) else {
        return false;
    };
    rest.len() > TEMP_MARK.len() + 6
        && rest[rest.len() - 6..]
            .iter()
            .all(|c| c.is_ascii_alphanumeric())
        && rest[..rest.len() - 6].ends_with(TEMP_MARK.as_bytes())
}

/// Takes an exclusive `flock` on `f` without waiting; false if another
/// open file holds one.
fn try_lock(f: &File) -> bool {
    // SAFETY: flock on a descriptor this File owns; no memory is involved.
    unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// Creates the temporary for target `name` in `dir`, locked: unnamed when
/// the file system allows it, else named and registered.
fn create_temp(dir: &Path, name: &str) -> std::io::Result<(File, Option<PathBuf>)> {
    if !force_named() && Path::new("/proc/self/fd").is_dir() {
        match OpenOptions::new()
            .read(true)
            .write(true)
            .mode(0o666)
            .custom_flags(libc::O_TMPFILE)
            .open(dir)
        {
            Ok(f) => {
                try_lock(&f);
                return Ok((f, None));
            }
            // Not supported by this file system (or kernel): name it.
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EOPNOTSUPP) | Some(libc::EISDIR) | Some(libc::EINVAL)
                ) => {}
            Err(e) => return Err(e),
        }
    }
    let mut reg = registry();
    for _ in 0..100 {
        let p = temp_name(dir, name);
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o666)
            .open(&p)
        {
            Ok(f) => {
                try_lock(&f);
                reg.push(p.clone());
                return Ok((f, Some(p)));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        "no free temporary name after 100 tries",
    ))
}

/// Tests set `GROTTO_TEMP_NAMED=1` to take the named-temporary path that
/// file systems without `O_TMPFILE` get.
fn force_named() -> bool {
    std::env::var_os("GROTTO_TEMP_NAMED").is_some_and(|v| v == "1")
}

/// Gives the unnamed temporary `f` a temporary name in `dir` (the caller
/// holds the registry and records it).
fn link_unnamed(f: &File, dir: &Path, target: &Path) -> std::io::Result<PathBuf> {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let from = CString::new(format!("/proc/self/fd/{}", f.as_raw_fd()))?;
    for _ in 0..100 {
        let p = temp_name(dir, &name);
        let to = CString::new(p.as_os_str().as_bytes())?;
        // SAFETY: both arguments are valid NUL-terminated paths that live
        // across the call; linkat touches no other memory.
        let r = unsafe {
            libc::linkat(
                libc::AT_FDCWD,
                from.as_ptr(),
                libc::AT_FDCWD,
                to.as_ptr(),
                libc::AT_SYMLINK_FOLLOW,
            )
        };
        if r == 0 {
            return Ok(p);
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::AlreadyExists {
            return Err(e);
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        "no free temporary name after 100 tries",
    ))
}

/// Removes named temporaries in `dir` left by writers that are gone: a
/// regular file named `.NAME.grotto-XXXXXX.tmp`, older than a few seconds,
/// whose `flock` is free. A live writer holds its lock, so its file stays.
/// Best effort: anything unexpected leaves the file alone.
pub fn sweep_stale(dir: &Path) -> usize {
    sweep(dir, None)
}

/// Removes the stale temporaries of one file, `path` (those of a merge or
/// `compact` killed between linking and renaming its new file): what
/// [`sweep_stale`] removes, for this name alone. Graphs call it when they
/// are opened, so litter does not outlive the next command on the file.
pub fn sweep_stale_of(path: &Path) -> usize {
    let Some(name) = path.file_name() else {
        return 0;
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut prefix = b".".to_vec();
    prefix.extend_from_slice(name.as_bytes());
    prefix.extend_from_slice(TEMP_MARK.as_bytes());
    sweep(dir, Some(&prefix))
}

fn sweep(dir: &Path, prefix: Option<&[u8]>) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.as_bytes();
        if !is_temp_name(name) || prefix.is_some_and(|p| !name.starts_with(p)) {
            continue;
        }
        let p = e.path();
        let Ok(m) = std::fs::symlink_metadata(&p) else {
            continue;
        };
        let old = m
            .modified()
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= SWEEP_MIN_AGE);
        if !m.file_type().is_file() || !old {
            continue;
        }
        let Ok(f) = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&p)
        else {
            continue;
        };
        // Still the file we looked at, and nobody holds its lock.
        let same = f.metadata().is_ok_and(|fm| same_file(&fm, &m));
        if same && try_lock(&f) && std::fs::remove_file(&p).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn names_in(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("read_dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_new_file_appears_only_on_commit_and_leaves_nothing_else() {
        let d = tempfile::tempdir().expect("tempdir");
        let t = d.path().join("out.txt");
        let o = Output::create(&t, &[], Streams::Refused).expect("create");
        o.file().write_all(b"hello").expect("write");
        assert!(names_in(d.path()).is_empty(), "{:?}", names_in(d.path()));
        o.commit().expect("commit");
        assert_eq!(names_in(d.path()), vec!["out.txt"]);
        assert_eq!(std::fs::read(&t).expect("read"), b"hello");
        // 0666 less the umask, never tempfile's 0600.
        let mode = std::fs::metadata(&t).expect("stat").mode() & 0o777;
        assert_ne!(mode, 0o600);
    }

    #[test]
    fn an_abandoned_output_leaves_the_old_file() {
        let d = tempfile::tempdir().expect("tempdir");
        let t = d.path().join("g.txt");
        std::fs::write(&t, b"old").expect("write");
        std::fs::set_permissions(&t, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        let o = Output::create(&t, &[], Streams::Refused).expect("create");
        o.file().write_all(b"new, half").expect("write");
        drop(o);
        assert_eq!(std::fs::read(&t).expect("read"), b"old");
        assert_eq!(names_in(d.path()), vec!["g.txt"]);
        let o = Output::create(&t, &[], Streams::Refused).expect("create");
        o.file().write_all(b"new").expect("write");
        o.commit().expect("commit");
        assert_eq!(std::fs::read(&t).expect("read"), b"new");
        assert_eq!(
            std::fs::metadata(&t).expect("stat").mode() & 0o777,
            0o640,
            "the replacement keeps the mode"
        );
    }

    #[test]
    fn inputs_devices_directories_and_links() {
        let d = tempfile::tempdir().expect("tempdir");
        let input = d.path().join("in.el");
        std::fs::write(&input, b"1 2\n").expect("write");
        let hard = d.path().join("hard.el");
        std::fs::hard_link(&input, &hard).expect("link");
        let soft = d.path().join("soft.el");
        std::os::unix::fs::symlink("in.el", &soft).expect("symlink");
        for out in [&input, &hard, &soft] {
            let e = Output::create(out, &[&input], Streams::Allowed).expect_err("an input");
            assert!(matches!(e, Error::Refused { .. }), "{e}");
            assert!(e.to_string().contains("is the input"), "{e}");
        }
        let e = Output::create(d.path(), &[], Streams::Allowed).expect_err("a directory");
        assert!(e.to_string().contains("is a directory"), "{e}");
        let null = Path::new("/dev/null");
        let e = Output::create(null, &[], Streams::Refused).expect_err("a device");
        assert!(e.to_string().contains("character device"), "{e}");
        let o = Output::create(null, &[], Streams::Allowed).expect("written through");
        assert_eq!(o.target(), &Target::Device(null.to_path_buf()));
        o.commit().expect("nothing to do");
        // A symlink is followed: the file it names is replaced, the link stays.
        let other = d.path().join("other.txt");
        std::fs::write(&other, b"old").expect("write");
        let link = d.path().join("link.txt");
        std::os::unix::fs::symlink("other.txt", &link).expect("symlink");
        let o = Output::create(&link, &[&input], Streams::Refused).expect("create");
        o.file().write_all(b"new").expect("write");
        o.commit().expect("commit");
        assert!(std::fs::symlink_metadata(&link)
            .expect("lstat")
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&other).expect("read"), b"new");
        // A dangling symlink: the file it names is created.
        let dangling = d.path().join("dangling");
        std::os::unix::fs::symlink("made.txt", &dangling).expect("symlink");
        let o = Output::create(&dangling, &[], Streams::Refused).expect("create");
        o.commit().expect("commit");
        assert!(d.path().join("made.txt").is_file());
    }

    #[test]
    fn stale_named_temporaries_are_swept_and_live_ones_kept() {
        let d = tempfile::tempdir().expect("tempdir");
        assert!(is_temp_name(b".g.grotto.grotto-aB3xZ9.tmp"));
        assert!(!is_temp_name(b".g.grotto.aB3xZ9.tmp"));
        assert!(!is_temp_name(b"g.grotto-aB3xZ9.tmp"));
        let stale = d.path().join(".a.grotto-AAAAAA.tmp");
        let live = d.path().join(".b.grotto-BBBBBB.tmp");
        let foreign = d.path().join(".c.AAAAAA.tmp");
        for p in [&stale, &live, &foreign] {
            std::fs::write(p, b"x").expect("write");
            let old = SystemTime::now() - Duration::from_secs(60);
            File::options()
                .write(true)
                .open(p)
                .expect("open")
                .set_modified(old)
                .expect("set mtime");
        }
        let holder = File::open(&live).expect("open");
        assert!(try_lock(&holder));
        assert_eq!(sweep_stale(d.path()), 1);
        assert!(!stale.exists());
        assert!(live.exists(), "a live writer's file is kept");
        assert!(foreign.exists(), "a file of another naming is kept");
    }
}
