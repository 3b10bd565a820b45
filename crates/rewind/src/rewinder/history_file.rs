//! The rewind history on disk, so a session can resume with its history on the next launch.
//!
//! Layout (little-endian): magic `BSPNHIST`, format version (u16), then a fingerprint of
//! what the records depend on: `size_of::<State>()` (u32), the host byte order (u8: the
//! records are differences of in-memory `State` bytes, which are host-endian) and the
//! save-state format major.minor (u16, u16: a new field changes the layout), the ROM's
//! SHA-1, the payload length (u64), the payload, and a CRC32 of everything before it.
//! Any mismatch is an error naming it: the history is a cache beside the portable save
//! state, and a file is never misread (the caller starts from the state without history).
//!
//! Payload: the present frame; the ring's records (frame, length, bytes) oldest first; the
//! input log by chunk (first frame, events); the clock log; the reset and load marks (a
//! load with its state's bytes); the memory writes (cycle u64, frame u64, bank u16 with
//! 0xFFFF for "through the memory map", address u16, value u8); since version 3, the newest
//! frame played past the newest stored one (u64, all ones for none). Everything derived (the
//! newest state, the encoder's current code, the keyframe chain) is rebuilt on reading, as
//! after a fork.

use super::{LoggedWrite, MemoryWrite, ResetMark, Rewinder, STATE_LEN};
use crate::codec;
use crate::rewinder::Config;
use backspin_core::State;
use backspin_core::state_file::{
    FORMAT_MAJOR, FORMAT_MINOR, STATE_LAYOUT_SINCE_MINOR, checksum::crc32,
};

const MAGIC: [u8; 8] = *b"BSPNHIST";
/// 2: the memory-write log after the marks. 3: the newest frame played after the writes.
const VERSION: u16 = 3;
/// The oldest version still read.
const OLDEST_VERSION: u16 = 2;
/// The bank field of a write through the memory map (no bank).
const MAPPED: u16 = 0xFFFF;
/// Bytes before the payload: magic, version, fingerprint, SHA-1, payload length.
const HEADER_LEN: usize = 8 + 2 + 4 + 1 + 2 + 2 + 20 + 8;

/// Why a history file cannot be used. None of these touch a running game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    /// The bytes do not start like a history file.
    #[error("not a Backspin rewind history")]
    NotAHistory,
    /// Another version of the history format.
    #[error("rewind history format {found}: this Backspin reads {OLDEST_VERSION} to {VERSION}")]
    Version {
        /// The file's version.
        found: u16,
    },
    /// Written by a build whose `State` layout differs (histories store raw state bytes).
    #[error("the rewind history was written by a build with another state layout ({what})")]
    OtherLayout {
        /// What differs.
        what: String,
    },
    /// Saved with another ROM.
    #[error("the rewind history belongs to another ROM")]
    OtherRom,
    /// The file ends early.
    #[error("the rewind history is truncated")]
    Truncated,
    /// The CRC-32 does not match.
    #[error("the rewind history is corrupt (checksum {stored:08X}, contents {computed:08X})")]
    BadChecksum {
        /// The CRC-32 the file stores.
        stored: u32,
        /// The CRC-32 of its contents.
        computed: u32,
    },
    /// A structural error.
    #[error("the rewind history is corrupt: {0}")]
    Corrupt(&'static str),
    /// The history's newest frame is not the state the core holds.
    #[error("the rewind history does not lead to the saved state")]
    Mismatch,
}

fn host_order() -> u8 {
    u8::from(cfg!(target_endian = "big"))
}

impl Rewinder {
    /// The history as a file for the ROM with SHA-1 `rom_sha1`.
    pub(crate) fn write_history(&self, rom_sha1: &[u8; 20]) -> Vec<u8> {
        let mut payload = Vec::with_capacity(self.ring.used_bytes() + 4096);
        put_u64(&mut payload, self.present.unwrap_or(u64::MAX));
        put_u32(&mut payload, self.ring.len() as u32);
        for i in 0..self.ring.len() {
            let record = self.ring.record(i);
            put_u64(&mut payload, self.ring.frame(i));
            put_u32(&mut payload, record.len() as u32);
            payload.extend_from_slice(record);
        }
        let chunks: Vec<_> = self.logs.buttons.chunks().collect();
        put_u32(&mut payload, chunks.len() as u32);
        for (first_frame, words) in chunks {
            put_u64(&mut payload, first_frame);
            put_u32(&mut payload, words.len() as u32);
            for &word in words {
                put_u64(&mut payload, word);
            }
        }
        put_u32(&mut payload, self.logs.rtc.len() as u32);
        for &(cycle, seconds) in &self.logs.rtc {
            put_u64(&mut payload, cycle);
            put_u64(&mut payload, seconds);
        }
        put_u32(&mut payload, self.logs.resets.len() as u32);
        for mark in &self.logs.resets {
            put_u64(&mut payload, mark.cycle);
            put_u64(&mut payload, mark.frame);
            put_u64(&mut payload, mark.base);
            match &mark.loaded {
                Some(state) => {
                    payload.push(1);
                    payload.extend_from_slice(state.as_bytes());
                }
                None => payload.push(0),
            }
        }
        put_u32(&mut payload, self.logs.writes.len() as u32);
        for logged in &self.logs.writes {
            put_u64(&mut payload, logged.write.cycle);
            put_u64(&mut payload, logged.frame);
            let bank = logged.write.bank.unwrap_or(MAPPED);
            payload.extend_from_slice(&bank.to_le_bytes());
            payload.extend_from_slice(&logged.write.addr.to_le_bytes());
            payload.push(logged.write.value);
        }
        put_u64(&mut payload, self.head.unwrap_or(u64::MAX));
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len() + 4);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        put_u32(&mut out, STATE_LEN as u32);
        out.push(host_order());
        out.extend_from_slice(&FORMAT_MAJOR.to_le_bytes());
        out.extend_from_slice(&FORMAT_MINOR.to_le_bytes());
        out.extend_from_slice(rom_sha1);
        put_u64(&mut out, payload.len() as u64);
        out.extend_from_slice(&payload);
        let crc = crc32(&out);
        put_u32(&mut out, crc);
        out
    }

    /// Reads a history written by [`Rewinder::write_history`] into a rewinder with
    /// `config` (a smaller budget keeps the newest part). Checks everything before
    /// anything is used.
    pub(crate) fn read_history(
        config: Config,
        rom_sha1: &[u8; 20],
        bytes: &[u8],
    ) -> Result<Rewinder, HistoryError> {
        let (version, payload) = check_container(rom_sha1, bytes)?;
        let mut input = Reader(payload);
        let mut rewinder = Rewinder::with_config(config);
        let present = input.u64()?;
        rewinder.present = (present != u64::MAX).then_some(present);
        let records = input.u32()?;
        let mut last_frame = 0;
        for _ in 0..records {
            let frame = input.u64()?;
            let len = input.u32()? as usize;
            let record = input.bytes(len)?;
            if frame < last_frame || codec::verify(record).is_err() {
                return Err(HistoryError::Corrupt("a record is out of order or damaged"));
            }
            last_frame = frame;
            if rewinder.ring.push(frame, record).is_err() {
                return Err(HistoryError::Corrupt("a record does not fit the ring"));
            }
        }
        let chunks = input.u32()?;
        for _ in 0..chunks {
            let first_frame = input.u64()?;
            let len = input.u32()? as usize;
            if len > input.0.len() / 8 {
                return Err(HistoryError::Truncated);
            }
            let words = (0..len)
                .map(|_| input.u64())
                .collect::<Result<Vec<_>, _>>()?;
            if !rewinder.logs.buttons.push_chunk(first_frame, &words) {
                return Err(HistoryError::Corrupt("the input log is out of order"));
            }
        }
        let clock_events = input.u32()?;
        for _ in 0..clock_events {
            let event = (input.u64()?, input.u64()?);
            if rewinder
                .logs
                .rtc
                .last()
                .is_some_and(|last| last.0 > event.0)
            {
                return Err(HistoryError::Corrupt("the clock log is out of order"));
            }
            rewinder.logs.rtc.push(event);
        }
        let marks = input.u32()?;
        for _ in 0..marks {
            let (cycle, frame, base) = (input.u64()?, input.u64()?, input.u64()?);
            let loaded = match input.bytes(1)?[0] {
                0 => None,
                1 => {
                    let mut state: Box<State> = bytemuck::zeroed_box();
                    bytemuck::bytes_of_mut(&mut *state).copy_from_slice(input.bytes(STATE_LEN)?);
                    Some(state)
                }
                _ => return Err(HistoryError::Corrupt("a reset mark has an unknown kind")),
            };
            if rewinder
                .logs
                .resets
                .last()
                .is_some_and(|last| last.cycle > cycle || last.frame > frame)
            {
                return Err(HistoryError::Corrupt("the reset log is out of order"));
            }
            rewinder.logs.resets.push(ResetMark {
                cycle,
                frame,
                base,
                loaded,
            });
        }
        let writes = input.u32()?;
        for _ in 0..writes {
            let (cycle, frame) = (input.u64()?, input.u64()?);
            let (bank, addr, value) = (input.u16()?, input.u16()?, input.bytes(1)?[0]);
            let write = MemoryWrite {
                cycle,
                bank: (bank != MAPPED).then_some(bank),
                addr,
                value,
            };
            if rewinder
                .logs
                .writes
                .last()
                .is_some_and(|last| last.write.cycle > cycle)
            {
                return Err(HistoryError::Corrupt("the write log is out of order"));
            }
            rewinder.logs.writes.push(LoggedWrite { write, frame });
        }
        if version >= 3 {
            let head = input.u64()?;
            rewinder.head = (head != u64::MAX).then_some(head);
        }
        if !input.0.is_empty() {
            return Err(HistoryError::Corrupt("bytes after the last section"));
        }
        rewinder.rebuild_after_read()?;
        Ok(rewinder)
    }

    /// Rebuilds what the file does not hold: the oldest keyframe, the newest state, the
    /// encoder's code and the keyframe chain counters (as `fork_after` does).
    fn rebuild_after_read(&mut self) -> Result<(), HistoryError> {
        if self.ring.evicted > 0 {
            self.after_eviction();
        }
        self.first_key_frame = self.find_first_key();
        let newest = self
            .newest_frame()
            .ok_or(HistoryError::Corrupt("no frames"))?;
        if self.first_key_frame.is_none() {
            return Err(HistoryError::Corrupt("no keyframe"));
        }
        if self
            .present
            .is_none_or(|p| p < self.oldest_frame().unwrap_or(0))
        {
            return Err(HistoryError::Corrupt(
                "the present frame is not in the history",
            ));
        }
        if self
            .head
            .is_some_and(|h| h <= newest || self.present.is_some_and(|p| p > h))
        {
            return Err(HistoryError::Corrupt(
                "the newest frame played is not past the newest stored one",
            ));
        }
        let key = self
            .key_before(self.ring.len())
            .ok_or(HistoryError::Corrupt("no keyframe"))?;
        // From the newest keyframe (`reconstruct` might pick the newest state, which is
        // what is being rebuilt).
        self.start_from(super::seek::ReconstructSource::Keyframe(key), newest)
            .map_err(|_| HistoryError::Corrupt("a record does not decode"))?;
        *self.newest = *self.cursor;
        self.newest_replaced();
        self.unsynced = backspin_core::WrittenPages::ALL;
        self.encoder
            .set_meta(self.ring.record(key))
            .map_err(|_| HistoryError::Corrupt("a keyframe's code does not decode"))?;
        self.deltas_since_key = (self.ring.len() - 1 - key) as u32;
        self.chain_bytes_since_key = (key + 1..self.ring.len())
            .map(|i| self.ring.record(i).len())
            .sum();
        self.stats.ring_wraps = 0;
        self.ring.evicted = 0;
        Ok(())
    }
}

/// Checks magic, version, fingerprint, ROM and CRC; returns the version and the payload.
fn check_container<'a>(
    rom_sha1: &[u8; 20],
    bytes: &'a [u8],
) -> Result<(u16, &'a [u8]), HistoryError> {
    if bytes.len() < 8 || bytes[..8] != MAGIC {
        return Err(HistoryError::NotAHistory);
    }
    if bytes.len() < HEADER_LEN + 4 {
        return Err(HistoryError::Truncated);
    }
    let mut header = Reader(&bytes[8..HEADER_LEN]);
    let version = header.u16()?;
    if !(OLDEST_VERSION..=VERSION).contains(&version) {
        return Err(HistoryError::Version { found: version });
    }
    let state_len = header.u32()?;
    let order = header.bytes(1)?[0];
    let (major, minor) = (header.u16()?, header.u16()?);
    if state_len as usize != STATE_LEN || order != host_order() {
        return Err(HistoryError::OtherLayout {
            what: format!("a {state_len}-byte state, byte order {order}"),
        });
    }
    if major != FORMAT_MAJOR || !(STATE_LAYOUT_SINCE_MINOR..=FORMAT_MINOR).contains(&minor) {
        return Err(HistoryError::OtherLayout {
            what: format!("save-state format {major}.{minor}"),
        });
    }
    if header.bytes(20)? != rom_sha1 {
        return Err(HistoryError::OtherRom);
    }
    let payload_len = usize::try_from(header.u64()?).map_err(|_| HistoryError::Truncated)?;
    let end = HEADER_LEN
        .checked_add(payload_len)
        .filter(|end| end.checked_add(4) == Some(bytes.len()))
        .ok_or(HistoryError::Truncated)?;
    let stored = u32::from_le_bytes(bytes[end..end + 4].try_into().expect("4 bytes"));
    let computed = crc32(&bytes[..end]);
    if stored != computed {
        return Err(HistoryError::BadChecksum { stored, computed });
    }
    Ok((version, &bytes[HEADER_LEN..end]))
}

fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}

/// A cursor over the payload; every read is length-checked.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn bytes(&mut self, len: usize) -> Result<&'a [u8], HistoryError> {
        if self.0.len() < len {
            return Err(HistoryError::Truncated);
        }
        let (head, rest) = self.0.split_at(len);
        self.0 = rest;
        Ok(head)
    }
    fn u16(&mut self) -> Result<u16, HistoryError> {
        Ok(u16::from_le_bytes(
            self.bytes(2)?.try_into().expect("2 bytes"),
        ))
    }
    fn u32(&mut self) -> Result<u32, HistoryError> {
        Ok(u32::from_le_bytes(
            self.bytes(4)?.try_into().expect("4 bytes"),
        ))
    }
    fn u64(&mut self) -> Result<u64, HistoryError> {
        Ok(u64::from_le_bytes(
            self.bytes(8)?.try_into().expect("8 bytes"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use backspin_core::{Core, Options, Rom};

    #[test]
    fn records_round_trip() {
        let rom = Rom::from_bytes(backspin_test_support::builtin_rom()).unwrap();
        let mut core = Core::new(rom, Options::default());
        // Every frame stored: the test seeks stored states, which re-simulate nothing.
        let every_frame = Config {
            capture_every: 1,
            ..Config::new(16 << 20)
        };
        let mut rewinder = Rewinder::with_config(every_frame.clone());
        let mut states = Vec::new();
        for frame in 0..300u64 {
            core.run_frame();
            rewinder.capture(core.state(), frame);
            states.push(Box::new(*core.state()));
        }
        let bytes = rewinder.write_history(&[0; 20]);
        let mut read = Rewinder::read_history(every_frame, &[0; 20], &bytes).unwrap();
        assert!(read.newest.as_bytes() == states[299].as_bytes(), "newest");
        for frame in (0..300u64).rev().step_by(7) {
            let snapshot = read.seek(frame).unwrap();
            assert!(
                snapshot.state.as_bytes() == states[frame as usize].as_bytes(),
                "frame {frame}"
            );
        }
    }
}
