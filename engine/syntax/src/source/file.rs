//! Reading a file the workspace names (a source, an included file, a settings or
//! machine file) without trusting it: only a regular file is opened (a device such as
//! `/dev/zero`, a FIFO or a socket would block or never end), and at most a stated
//! number of bytes is read whatever its length claims.

use std::fmt;
use std::io::Read;
use std::path::Path;

/// Why a file was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileError {
    /// Nothing there.
    Absent,
    /// A directory.
    Directory,
    /// A device, FIFO or socket: never opened.
    NotRegular,
    /// More than the limit, in bytes.
    TooLarge(u64),
    /// The system's error.
    Io(String),
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Absent => f.write_str("no such file"),
            FileError::Directory => f.write_str("a directory, not a file"),
            FileError::NotRegular => {
                f.write_str("not a regular file (a device, FIFO or socket): not read")
            }
            FileError::TooLarge(max) => write!(f, "larger than {}: not read", size(*max)),
            FileError::Io(e) => f.write_str(e),
        }
    }
}

/// `bytes` as `16 MiB`, `64 KiB` or `100 bytes`.
fn size(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

/// The bytes of the regular file at `path` (symbolic links followed), at most `max` of
/// them; anything else is an error and is never opened.
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, FileError> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(FileError::Absent),
        Err(e) => return Err(FileError::Io(e.to_string())),
    };
    if meta.is_dir() {
        return Err(FileError::Directory);
    }
    if !meta.is_file() {
        return Err(FileError::NotRegular);
    }
    if meta.len() > max {
        return Err(FileError::TooLarge(max));
    }
    let file = std::fs::File::open(path).map_err(|e| FileError::Io(e.to_string()))?;
    // The length can change between the look and the read: read one byte past the
    // limit to know.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| FileError::Io(e.to_string()))?;
    if bytes.len() as u64 > max {
        return Err(FileError::TooLarge(max));
    }
    Ok(bytes)
}

/// The largest source file read (a 200,000-line program is about 10 MiB).
pub const MAX_SOURCE_BYTES: u64 = 256 << 20;

/// The bytes of the source file at `path` (see [`read_regular`]), at most
/// [`MAX_SOURCE_BYTES`].
pub fn read_source(path: &Path) -> Result<Vec<u8>, FileError> {
    read_regular(path, MAX_SOURCE_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_fifos_and_directories_are_never_opened() {
        assert_eq!(
            read_regular(Path::new("/dev/zero"), 1 << 20),
            Err(FileError::NotRegular)
        );
        assert_eq!(
            read_regular(Path::new("/"), 1 << 20),
            Err(FileError::Directory)
        );
        assert_eq!(
            read_regular(Path::new("/no/such/file"), 1 << 20),
            Err(FileError::Absent)
        );
        let dir = std::env::temp_dir().join(format!("costline-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert_eq!(read_regular(&fifo, 1 << 20), Err(FileError::NotRegular));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_over_the_limit_is_not_read() {
        let dir = std::env::temp_dir().join(format!("costline-large-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.f90");
        std::fs::write(&file, vec![b'!'; 2048]).unwrap();
        assert_eq!(read_regular(&file, 1024), Err(FileError::TooLarge(1024)));
        assert_eq!(read_regular(&file, 2048).map(|b| b.len()), Ok(2048));
        assert_eq!(
            FileError::TooLarge(16 << 20).to_string(),
            "larger than 16 MiB: not read"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
