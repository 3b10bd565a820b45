//! Reading a file's parts: the header, the checked sections, the file CRC and metadata.
//! Every read checks the length first: a damaged file is an error, never a panic.

use super::{
    DAMAGED_MAGIC_BITS, FORMAT_MAJOR, FORMAT_MINOR, FileInfo, MAGIC, Metadata, RomIdentity,
    SIZED_CART_RAM_MINOR, StateError, checksum, codec, file_crc_at,
};
use crate::State;
use crate::cart::CART_RAM_MAX;

/// What the header says.
pub(super) struct Header {
    pub(super) minor: u16,
    pub(super) model: u8,
    pub(super) rom: RomIdentity,
    /// Where the sections start and how long they are.
    pub(super) state_start: usize,
    pub(super) state_len: usize,
}

/// A cursor over the header: every read checks the length first.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, len: usize, what: &str) -> Result<&'a [u8], StateError> {
        let stop = self
            .pos
            .checked_add(len)
            .filter(|&stop| stop <= self.bytes.len());
        let Some(stop) = stop else {
            return Err(StateError::Truncated {
                at: what.to_string(),
            });
        };
        let taken = &self.bytes[self.pos..stop];
        self.pos = stop;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], StateError> {
        let mut array = [0; N];
        array.copy_from_slice(self.take(N, what)?);
        Ok(array)
    }

    fn short_str(&mut self, what: &str) -> Result<String, StateError> {
        let [len] = self.array(what)?;
        let bytes = self.take(usize::from(len), what)?;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }
}

pub(super) fn parse_header(bytes: &[u8]) -> Result<Header, StateError> {
    let Some(magic) = bytes.get(..MAGIC.len()) else {
        return Err(StateError::NotASaveState);
    };
    let flipped_bits: u32 = magic
        .iter()
        .zip(MAGIC)
        .map(|(&byte, want)| (byte ^ want).count_ones())
        .sum();
    if flipped_bits > DAMAGED_MAGIC_BITS {
        return Err(StateError::NotASaveState);
    }
    if flipped_bits > 0 {
        return Err(StateError::Corrupt {
            what: "its first bytes (the Backspin signature) are damaged".to_string(),
        });
    }
    let mut cursor = Cursor {
        bytes,
        pos: MAGIC.len(),
    };
    let major = u16::from_le_bytes(cursor.array("the header (version)")?);
    let minor = u16::from_le_bytes(cursor.array("the header (version)")?);
    if major > FORMAT_MAJOR || (major == FORMAT_MAJOR && minor > FORMAT_MINOR) {
        return Err(StateError::TooNew {
            file_major: major,
            file_minor: minor,
        });
    }
    if major < FORMAT_MAJOR {
        return Err(StateError::TooOld {
            file_major: major,
            file_minor: minor,
        });
    }
    let [model] = cursor.array("the header (model)")?;
    let rom = RomIdentity {
        title: cursor.short_str("the header (ROM title)")?,
        header_checksum: cursor.array::<1>("the header (ROM checksums)")?[0],
        global_checksum: u16::from_le_bytes(cursor.array("the header (ROM checksums)")?),
        sha1: cursor.array("the header (ROM SHA-1)")?,
        cart_ram_bytes: CART_RAM_MAX,
    };
    let mut rom = rom;
    if minor >= SIZED_CART_RAM_MINOR {
        let stored = u32::from_le_bytes(cursor.array("the header (cartridge RAM size)")?);
        rom.cart_ram_bytes = usize::try_from(stored)
            .ok()
            .filter(|&size| size <= CART_RAM_MAX)
            .ok_or_else(|| StateError::Corrupt {
                what: format!("the header says {stored} bytes of cartridge RAM (at most 128 KiB)"),
            })?;
    }
    let state_len = u32::from_le_bytes(cursor.array("the header (state length)")?) as usize;
    Ok(Header {
        minor,
        model,
        rom,
        state_start: cursor.pos,
        state_len,
    })
}

/// The sections' bytes, once the CRC over header and state has been checked. A short file
/// is reported at the field where it ends.
pub(super) fn checked_sections<'a>(
    bytes: &'a [u8],
    header: &Header,
) -> Result<&'a [u8], StateError> {
    let state_end = header.state_start.saturating_add(header.state_len);
    let crc_end = state_end.saturating_add(4);
    if bytes.len() < crc_end {
        let available = &bytes[header.state_start..bytes.len().min(state_end)];
        let mut scratch: Box<State> = bytemuck::zeroed_box();
        codec::read_sections(
            available,
            header.minor,
            header.rom.cart_ram_bytes,
            &mut scratch,
        )?;
        return Err(StateError::Truncated {
            at: "the checksum after the state".to_string(),
        });
    }
    let stored = u32::from_le_bytes(bytes[state_end..crc_end].try_into().expect("4 bytes"));
    let computed = checksum::crc32(&bytes[..state_end]);
    if stored != computed {
        return Err(StateError::BadChecksum { stored, computed });
    }
    Ok(&bytes[header.state_start..state_end])
}

/// What the file says about itself, once its file CRC (1.7 on) has been checked.
pub(super) fn file_info(
    bytes: &[u8],
    header: &Header,
    state_bytes: usize,
) -> Result<FileInfo, StateError> {
    let checked_bytes = header.state_start + state_bytes + 4;
    let mut metadata_start = checked_bytes;
    if let Some(at) = file_crc_at(header.minor, checked_bytes) {
        let Some(stored) = bytes.get(at..at + 4) else {
            return Err(StateError::Truncated {
                at: "the file checksum after the state".to_string(),
            });
        };
        let stored = u32::from_le_bytes(stored.try_into().expect("4 bytes"));
        let computed = checksum::crc32_except(bytes, at);
        if stored != computed {
            return Err(StateError::BadFileChecksum { stored, computed });
        }
        metadata_start = at + 4;
    }
    Ok(FileInfo {
        major: FORMAT_MAJOR,
        minor: header.minor,
        model: header.model,
        rom: header.rom.clone(),
        state_bytes,
        checked_bytes,
        metadata: parse_metadata(bytes.get(metadata_start..).unwrap_or_default()),
    })
}

fn parse_metadata(bytes: &[u8]) -> Option<Metadata> {
    let mut cursor = Cursor { bytes, pos: 0 };
    let len = u32::from_le_bytes(cursor.array("metadata").ok()?) as usize;
    let payload = cursor.take(len, "metadata").ok()?;
    let stored = u32::from_le_bytes(cursor.array("metadata").ok()?);
    if stored != checksum::crc32(payload) {
        return None;
    }
    let mut cursor = Cursor {
        bytes: payload,
        pos: 0,
    };
    let created_unix_seconds = u64::from_le_bytes(cursor.array("metadata").ok()?);
    let frame = u64::from_le_bytes(cursor.array("metadata").ok()?);
    let emulator_version = cursor.short_str("metadata").ok()?;
    let png_len = u32::from_le_bytes(cursor.array("metadata").ok()?) as usize;
    let thumbnail_png = cursor.take(png_len, "metadata").ok()?.to_vec();
    Some(Metadata {
        created_unix_seconds,
        frame,
        emulator_version,
        thumbnail_png,
    })
}
