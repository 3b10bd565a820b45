//! Snapshot encoding: byte differences against the previous snapshot, zero-run tokens, then
//! LZ4 or Huffman when it pays.
//!
//! Why this shape (measurements in `shared/docs/rewind-notes.md`): consecutive per-frame
//! states differ in tens to hundreds of bytes out of ~145 KiB, so their difference is almost
//! all zeros. LZ4 alone spends about one byte per 255 zeros (~600 B per frame for nothing);
//! a zero-run tokeniser first removes the zeros, and the entropy stage then only sees the
//! few changed bytes. A patch is applied by adding its bytes (one frame forward) or
//! subtracting them (one frame back), so one record moves a state both ways in time.
//!
//! Differences are bytewise wrapping subtraction (`cur - old`, no borrow between bytes), not
//! XOR: a value stepping by one codes as 0x01 or 0xFF every time, where its XOR is 01, 03,
//! 07... as the low bits roll over. Measured together with the hot positions below (300 s of
//! pocket.gb): 14.5 -> 13.8 KiB/s; the other ROMs 1-3 % smaller.
//!
//! Before tokenising, a delta applies the models its keyframe group carries
//! ([`crate::hot`]): OAM is coded against the old value of its DMA source page, counters as
//! the zigzag of their step minus the expected step, and the bytes of the hot positions go
//! first, one per position, without token headers.
//!
//! Token stream: the hot bytes (deltas only), then repeated `varint zero_gap, varint
//! literal_len, literal_len bytes`, where the literal bytes are added to the target after
//! skipping `zero_gap` bytes. Gaps shorter than `MERGE_GAP` bytes are folded into the
//! literal (a token header costs at least two bytes; 4 measured best against 2, 8 and 12).
//!
//! The token stream is then stored raw, as an LZ4 block, or Huffman-coded with the code of
//! its keyframe group ([`crate::huffman`]), whichever is smallest.
//!
//! Record (what the ring stores for one snapshot):
//! ```text
//! byte 0      flags: bit 0 keyframe (the state itself: differences against zeros),
//!             bit 1 LZ4 payload, bit 2 Huffman payload
//! bytes 1..3  u16 LE checksum of everything after it
//! [meta]      keyframes only, for the deltas that follow: varint length, varint packed
//!             length (0: stored as is), then the metadata or its LZ4 block. Metadata:
//!             the Huffman codes (u64 LE mask of the contexts with a table, then 128 bytes
//!             of code-length nibbles per table), the blocks stored by value
//!             ([`crate::raw_blocks`]: varint count, varint gaps), the hot positions
//!             (varint count per class, then varint gaps per class), the counters (varint
//!             count, then per counter 0 = plain or 1 + expected step), the mirror (varint:
//!             0 = none, else 1 + number of the source page)
//! [varint]    token stream length, when the payload is LZ4 or Huffman
//! payload     token stream, its LZ4 block, or its Huffman bits
//! ```

use crate::hot::{
    self, ChangeCounts, CounterVotes, Counters, HotSet, MAX_COUNTERS, MAX_MIRROR_LEN, Mirror,
    MirrorVotes, STATE_COUNTERS, STATE_MIRROR,
};
use crate::huffman::{TokenCode, TokenCounts, TokenDecoder};
use crate::raw_blocks::{self, BlockStats, RawBlocks};
use lz4_flex::block::CompressTable;

/// Zero gaps shorter than this are merged into the surrounding literal.
const MERGE_GAP: usize = 4;
/// Token streams at most this long skip LZ4: it cannot win much on them and its hash-table
/// reset alone costs more than the bytes saved.
const LZ4_MIN_INPUT: usize = 96;
/// Token bytes a group must have seen before its statistics replace the flat code.
const MIN_STATS_BYTES: u64 = 4096;

pub const FLAG_KEYFRAME: u8 = 1 << 0;
pub const FLAG_LZ4: u8 = 1 << 1;
pub const FLAG_HUFFMAN: u8 = 1 << 2;
/// Flags byte plus checksum.
pub const HEADER_LEN: usize = 3;

/// A record could not be decoded: a bug or memory corruption, never user data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A record's checksum does not match its bytes.
    #[error("rewind record checksum mismatch (stored {stored:#06x}, computed {computed:#06x})")]
    Checksum {
        /// The checksum stored with the record.
        stored: u16,
        /// The checksum of its bytes.
        computed: u16,
    },
    /// A record ends early or holds an impossible token.
    #[error("rewind record is truncated or malformed")]
    Malformed,
    /// A Huffman-coded record whose keyframe group's code was evicted.
    #[error("rewind record needs the code of a keyframe that is gone")]
    MissingCode,
}

/// Worst-case token stream length for a state of `len` bytes: every literal of one byte
/// separated by a `MERGE_GAP`-byte gap, each token header at most 3 + 3 bytes.
pub fn max_token_len(len: usize) -> usize {
    len + (len / (MERGE_GAP + 1) + 1) * 6 + 16
}

/// Largest keyframe metadata: Huffman tables, value blocks, hot positions, counters.
const MAX_META: usize =
    TokenCode::BYTES + 3 * raw_blocks::MAX_BLOCKS + 3 * hot::MAX_HOT + 10 * (MAX_COUNTERS + 1) + 16;

/// Worst-case record length for a state of `len` bytes.
pub fn max_record_len(len: usize) -> usize {
    HEADER_LEN + 6 + MAX_META + 16 + lz4_flex::block::get_maximum_output_size(max_token_len(len))
}

/// Reusable buffers so that encoding a snapshot never allocates.
pub struct Encoder {
    tokens: Vec<u8>,
    record: Vec<u8>,
    zeros: Vec<u8>,
    small_table: CompressTable,
    large_table: CompressTable,
    /// The code deltas are written with: the one stored in the latest keyframe.
    code: TokenCode,
    /// The code the pending keyframe carries, until `commit_keyframe`.
    pending: TokenCode,
    /// Byte statistics of the token streams since the latest keyframe.
    counts: TokenCounts,
    /// Blocks the deltas store by value (from the latest keyframe), the pending keyframe's
    /// choice, and the statistics the next choice is made from.
    raw: RawBlocks,
    pending_raw: RawBlocks,
    block_stats: BlockStats,
    value_blocks: bool,
    /// Hot positions ([`crate::hot`]) of the latest keyframe, of the pending one, and the
    /// change statistics the next choice is made from.
    hot: HotSet,
    pending_hot: HotSet,
    change_counts: ChangeCounts,
    /// Counter fields and their expected steps: latest keyframe's, pending, statistics.
    counters: Counters,
    pending_counters: Counters,
    votes: CounterVotes,
    /// The mirrored region's source (OAM's shadow page): latest, pending, statistics.
    mirror: Mirror,
    pending_mirror: Mirror,
    mirror_votes: MirrorVotes,
    use_hot: bool,
    use_counters: bool,
    use_mirror: bool,
    /// Keyframe metadata being written, and its LZ4 block.
    meta: Vec<u8>,
    packed_meta: Vec<u8>,
}

impl Encoder {
    pub fn new(state_len: usize) -> Encoder {
        Encoder {
            tokens: Vec::with_capacity(max_token_len(state_len)),
            record: Vec::with_capacity(max_record_len(state_len)),
            zeros: vec![0; state_len],
            small_table: CompressTable::small(),
            large_table: CompressTable::large(),
            code: TokenCode::flat(),
            pending: TokenCode::flat(),
            counts: TokenCounts::default(),
            raw: RawBlocks::new(state_len),
            pending_raw: RawBlocks::new(state_len),
            block_stats: BlockStats::new(state_len),
            value_blocks: true,
            hot: HotSet::new(),
            pending_hot: HotSet::new(),
            change_counts: ChangeCounts::new(state_len),
            counters: Counters::new(&STATE_COUNTERS, state_len),
            pending_counters: Counters::new(&STATE_COUNTERS, state_len),
            votes: CounterVotes::default(),
            mirror: Mirror::new(STATE_MIRROR, state_len),
            pending_mirror: Mirror::new(STATE_MIRROR, state_len),
            mirror_votes: MirrorVotes::new(&Mirror::new(STATE_MIRROR, state_len)),
            use_hot: true,
            use_counters: true,
            use_mirror: true,
            meta: Vec::with_capacity(MAX_META),
            packed_meta: Vec::with_capacity(lz4_flex::block::get_maximum_output_size(MAX_META)),
        }
    }

    /// Whether keyframes may choose hot positions, counter steps and a mirror source (all on
    /// by default; off only to measure what they are worth).
    pub fn set_models(&mut self, hot: bool, counters: bool, mirror: bool) {
        self.use_hot = hot;
        self.use_counters = counters;
        self.use_mirror = mirror;
    }

    /// Hot positions of the current keyframe group.
    pub fn hot_count(&self) -> usize {
        self.hot.len()
    }

    /// Blocks the current keyframe group stores by value.
    pub fn value_block_count(&self) -> usize {
        self.raw.len()
    }

    /// Whether keyframes may choose blocks to store by value (on by default).
    pub fn set_value_blocks(&mut self, enabled: bool) {
        self.value_blocks = enabled;
    }

    /// True while deltas are written without a learned code (no statistics yet).
    pub fn code_is_flat(&self) -> bool {
        self.code.is_flat()
    }

    /// Encodes `cur` against `base` (the previous snapshot) as a delta record and copies
    /// the changed bytes of `cur` into `base` in the same pass (so `base == cur`
    /// afterwards). Returns the record, valid until the next call.
    pub fn encode_delta(&mut self, base: &mut [u8], cur: &[u8]) -> &[u8] {
        self.tokens.clear();
        // The mirror first (it copies the old source into `base`'s region), then counters
        // (they rewrite `base` so that `cur - base` is the coded step), then the hot bytes
        // (which leave `base` equal to `cur` there), then the rest. Decoding undoes them in
        // the same order.
        self.mirror_votes.vote(base, cur);
        self.mirror.encode(base, cur);
        self.counters.encode(base, cur, &mut self.votes);
        self.hot.gather(base, cur, &mut self.tokens);
        self.change_counts.note_hot(&self.hot, &self.tokens);
        tokenize(
            base,
            cur,
            &mut self.tokens,
            true,
            Some(&self.raw),
            Some(&mut self.block_stats),
            Some(&mut self.change_counts),
        );
        self.block_stats.end_frame(cur);
        self.change_counts.end_frame();
        self.counts.add(&self.tokens, self.hot.ends());
        self.record.clear();
        self.record.extend_from_slice(&[0, 0, 0]);
        let flags = self.store_tokens(true);
        self.finish(flags)
    }

    /// Encodes `cur` whole (against zeros) as a keyframe record carrying a new code
    /// built from the statistics since the previous keyframe. The encoder keeps using its
    /// old code until [`Encoder::commit_keyframe`] (call it once the record is stored).
    pub fn encode_keyframe(&mut self, cur: &[u8]) -> &[u8] {
        self.pending = if self.counts.total() >= MIN_STATS_BYTES {
            TokenCode::from_counts(&self.counts)
        } else {
            self.code.clone()
        };
        if self.value_blocks {
            self.block_stats.choose(&mut self.pending_raw);
        } else {
            self.pending_raw.clear();
        }
        // Hot positions, counters and the mirror never overlap value blocks (those are set,
        // not patched).
        let raw = &self.pending_raw;
        if self.use_hot {
            self.change_counts
                .choose(&mut self.pending_hot, |i| raw.contains_byte(i));
        } else {
            self.pending_hot.clear();
        }
        if self.use_mirror && raw.is_empty() {
            self.mirror_votes.choose(&mut self.pending_mirror);
        } else {
            self.pending_mirror.clear();
        }
        if self.use_counters {
            self.votes.choose(&mut self.pending_counters);
            self.pending_counters
                .disable_where(|start, end| raw.any_in(start, end));
        } else {
            self.pending_counters.disable_all();
        }
        self.tokens.clear();
        let mut zeros = std::mem::take(&mut self.zeros);
        tokenize(&mut zeros, cur, &mut self.tokens, false, None, None, None);
        self.zeros = zeros;
        self.record.clear();
        self.record.extend_from_slice(&[0, 0, 0]);
        self.meta.clear();
        self.pending.write(&mut self.meta);
        self.pending_raw.write(&mut self.meta);
        self.pending_hot.write(&mut self.meta);
        self.pending_counters.write(&mut self.meta);
        self.pending_mirror.write(&mut self.meta);
        self.store_meta();
        let flags = self.store_tokens(false) | FLAG_KEYFRAME;
        self.finish(flags)
    }

    /// Appends the keyframe metadata in `meta` to the record, LZ4-packed when that is
    /// smaller (the Huffman tables are mostly runs of equal nibbles).
    fn store_meta(&mut self) {
        let len = self.meta.len();
        put_varint(&mut self.record, len as u64);
        let bound = lz4_flex::block::get_maximum_output_size(len);
        // Within capacity (reserved for the worst case): no reallocation.
        self.packed_meta.resize(bound, 0);
        let packed = lz4_flex::block::compress_into_with_table(
            &self.meta,
            &mut self.packed_meta,
            &mut self.small_table,
        )
        .expect("output sized by get_maximum_output_size");
        if packed + varint_len(packed as u64) < len + 1 {
            put_varint(&mut self.record, packed as u64);
            self.record.extend_from_slice(&self.packed_meta[..packed]);
        } else {
            put_varint(&mut self.record, 0);
            self.record.extend_from_slice(&self.meta);
        }
    }

    /// The keyframe just encoded was stored: later deltas use its code.
    pub fn commit_keyframe(&mut self) {
        self.code = self.pending.clone();
        self.raw.copy_from(&self.pending_raw);
        self.hot.copy_from(&self.pending_hot);
        self.counters.copy_from(&self.pending_counters);
        self.mirror.copy_from(&self.pending_mirror);
        self.counts = TokenCounts::default();
        self.block_stats.reset();
        self.change_counts.reset();
        self.votes.reset();
        self.mirror_votes.reset();
    }

    /// Continue after a fork with the code of the keyframe that now governs the newest
    /// stored frame.
    pub fn set_meta(&mut self, keyframe: &[u8]) -> Result<(), DecodeError> {
        self.meta.resize(MAX_META, 0);
        let (meta, _) = keyframe_meta(keyframe, &mut self.meta)?;
        let (code, used) = TokenCode::read(meta).ok_or(DecodeError::Malformed)?;
        let mut rest = &meta[used..];
        let state_len = self.zeros.len();
        read_group_meta(
            &mut rest,
            state_len,
            &mut self.raw,
            &mut self.hot,
            &mut self.counters,
            &mut self.mirror,
        )?;
        self.code = code;
        self.counts = TokenCounts::default();
        self.block_stats.reset();
        self.change_counts.reset();
        self.votes.reset();
        self.mirror_votes.reset();
        Ok(())
    }

    /// Appends the token stream to the record in its smallest form; returns the flags.
    fn store_tokens(&mut self, allow_huffman: bool) -> u8 {
        let raw_len = self.tokens.len();
        let prefix = self.record.len();
        let mut best = (raw_len, 0u8);
        let hot_ends = if allow_huffman {
            *self.hot.ends()
        } else {
            [0; hot::CLASSES]
        };
        let huffman_len = if allow_huffman && !self.code.is_flat() {
            let n = self.code.encoded_len(&self.tokens, &hot_ends) + varint_len(raw_len as u64);
            if n < best.0 {
                best = (n, FLAG_HUFFMAN);
            }
            n
        } else {
            usize::MAX
        };
        if raw_len > LZ4_MIN_INPUT {
            put_varint(&mut self.record, raw_len as u64);
            let start = self.record.len();
            let bound = lz4_flex::block::get_maximum_output_size(raw_len);
            // Within capacity (reserved for the worst case): no reallocation.
            self.record.resize(start + bound, 0);
            let table = if raw_len < usize::from(u16::MAX) {
                &mut self.small_table
            } else {
                &mut self.large_table
            };
            let written = lz4_flex::block::compress_into_with_table(
                &self.tokens,
                &mut self.record[start..],
                table,
            )
            .expect("output sized by get_maximum_output_size");
            let n = written + (start - prefix);
            if n < best.0 {
                self.record.truncate(start + written);
                return FLAG_LZ4;
            }
            self.record.truncate(prefix);
        }
        if best.1 == FLAG_HUFFMAN {
            debug_assert!(huffman_len < raw_len);
            put_varint(&mut self.record, raw_len as u64);
            self.code.encode(&self.tokens, &hot_ends, &mut self.record);
            return FLAG_HUFFMAN;
        }
        self.record.extend_from_slice(&self.tokens);
        0
    }

    fn finish(&mut self, flags: u8) -> &[u8] {
        let sum = checksum(&self.record[HEADER_LEN..]);
        self.record[0] = flags;
        self.record[1..3].copy_from_slice(&sum.to_le_bytes());
        debug_assert!(self.record.len() <= self.record.capacity());
        &self.record
    }
}

/// A keyframe's metadata (unpacked into `scratch` if it was packed) and its payload.
fn keyframe_meta<'a>(
    record: &'a [u8],
    scratch: &'a mut [u8],
) -> Result<(&'a [u8], &'a [u8]), DecodeError> {
    let (flags, mut input) = verify(record)?;
    if flags & FLAG_KEYFRAME == 0 {
        return Err(DecodeError::Malformed);
    }
    let len = get_varint(&mut input).ok_or(DecodeError::Malformed)? as usize;
    let packed = get_varint(&mut input).ok_or(DecodeError::Malformed)? as usize;
    if packed == 0 {
        let meta = input.get(..len).ok_or(DecodeError::Malformed)?;
        return Ok((meta, &input[len..]));
    }
    let block = input.get(..packed).ok_or(DecodeError::Malformed)?;
    let out = scratch.get_mut(..len).ok_or(DecodeError::Malformed)?;
    let n = lz4_flex::block::decompress_into(block, out).map_err(|_| DecodeError::Malformed)?;
    if n != len {
        return Err(DecodeError::Malformed);
    }
    Ok((&scratch[..len], &input[packed..]))
}

/// A keyframe's payload (its token stream, after the metadata).
fn keyframe_payload(record: &[u8]) -> Result<&[u8], DecodeError> {
    let (_, mut input) = verify(record)?;
    let len = get_varint(&mut input).ok_or(DecodeError::Malformed)? as usize;
    let packed = get_varint(&mut input).ok_or(DecodeError::Malformed)? as usize;
    let skip = if packed == 0 { len } else { packed };
    input.get(skip..).ok_or(DecodeError::Malformed)
}

/// How a delta record is applied (see [`crate::raw_blocks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Apply {
    /// One capture later: differences added, value blocks set.
    Forward,
    /// One capture earlier: differences subtracted; value blocks and the mirrored region
    /// left for `ValuesOnly`.
    Backward,
    /// Only set the value blocks and the mirrored region (from the record of the frame a
    /// backward walk lands on).
    ValuesOnly,
}

/// Reusable buffers for decoding records, and the code and value blocks of one keyframe
/// group.
pub struct Decoder {
    tokens: Vec<u8>,
    table: TokenDecoder,
    raw: RawBlocks,
    hot: HotSet,
    counters: Counters,
    mirror: Mirror,
    state_len: usize,
    /// Scratch for unpacking keyframe metadata.
    meta: Vec<u8>,
    /// Which keyframe's metadata is loaded (the caller's key, e.g. its frame).
    meta_key: Option<u64>,
}

impl Decoder {
    pub fn new(state_len: usize) -> Decoder {
        Decoder {
            tokens: vec![0; max_token_len(state_len)],
            table: TokenDecoder::new(&TokenCode::flat()),
            raw: RawBlocks::new(state_len),
            hot: HotSet::new(),
            counters: Counters::new(&STATE_COUNTERS, state_len),
            mirror: Mirror::new(STATE_MIRROR, state_len),
            state_len,
            meta: vec![0; MAX_META],
            meta_key: None,
        }
    }

    pub fn meta_key(&self) -> Option<u64> {
        self.meta_key
    }

    /// Loads the code and value blocks stored in `keyframe`, under `key`.
    pub fn load_meta(&mut self, key: u64, keyframe: &[u8]) -> Result<(), DecodeError> {
        self.meta_key = None;
        let (meta, _) = keyframe_meta(keyframe, &mut self.meta)?;
        let (code, used) = TokenCode::read(meta).ok_or(DecodeError::Malformed)?;
        let mut rest = &meta[used..];
        read_group_meta(
            &mut rest,
            self.state_len,
            &mut self.raw,
            &mut self.hot,
            &mut self.counters,
            &mut self.mirror,
        )?;
        self.table.rebuild(&code);
        self.meta_key = Some(key);
        Ok(())
    }

    /// Forgets the loaded metadata (its keyframe may have been replaced).
    pub fn forget_meta(&mut self) {
        self.meta_key = None;
    }

    /// Applies a record to `target`. A keyframe record added to zeros yields the keyframe
    /// state (`mode` is ignored); a delta record needs its group's metadata loaded.
    pub fn apply(
        &mut self,
        record: &[u8],
        target: &mut [u8],
        mode: Apply,
    ) -> Result<(), DecodeError> {
        if mode == Apply::ValuesOnly
            && self.meta_key.is_some()
            && self.mirror.range().is_some()
            && !is_keyframe(record)
        {
            // The mirrored region at the landing frame is its source one frame earlier plus
            // the coded difference: step back over this record and forward again (every
            // other byte returns to where it was; the forward step rebuilds the region).
            self.apply_once(record, target, Apply::Backward)?;
            return self.apply_once(record, target, Apply::Forward);
        }
        self.apply_once(record, target, mode)
    }

    fn apply_once(
        &mut self,
        record: &[u8],
        target: &mut [u8],
        mode: Apply,
    ) -> Result<(), DecodeError> {
        let (flags, mut payload) = verify(record)?;
        let keyframe = flags & FLAG_KEYFRAME != 0;
        if keyframe {
            payload = keyframe_payload(record)?;
        } else if self.meta_key.is_none() {
            return Err(DecodeError::MissingCode);
        }
        // A keyframe is the state against zeros; a delta uses its group's models.
        let (raw, hot_ends) = if keyframe {
            (None, [0; hot::CLASSES])
        } else {
            (Some(&self.raw), *self.hot.ends())
        };
        let mode = if keyframe { Apply::Forward } else { mode };
        let models = !keyframe && mode != Apply::ValuesOnly;
        let mut saved = [0u64; MAX_COUNTERS];
        // The mirrored region: forward, it starts from its source's old value (or from zero,
        // and the source's new value is added at the end); backward, it stays as it is (the
        // landing record's `ValuesOnly` rebuilds it).
        let mut kept = [0u8; MAX_MIRROR_LEN];
        let mirror = if models { self.mirror.range() } else { None };
        let from_new = self.mirror.codes_from_new();
        if let Some((to, from, len)) = mirror {
            if target.len() < to.max(from) + len {
                return Err(DecodeError::Malformed);
            }
            match (mode, from_new) {
                (Apply::Forward, false) => target.copy_within(from..from + len, to),
                (Apply::Forward, true) => target[to..to + len].fill(0),
                _ => kept[..len].copy_from_slice(&target[to..to + len]),
            }
        }
        if models {
            self.counters
                .save(target, &mut saved)
                .ok_or(DecodeError::Malformed)?;
        }
        let tokens = if flags & (FLAG_LZ4 | FLAG_HUFFMAN) == 0 {
            payload
        } else {
            let mut input = payload;
            let raw_len = get_varint(&mut input).ok_or(DecodeError::Malformed)? as usize;
            let out = self
                .tokens
                .get_mut(..raw_len)
                .ok_or(DecodeError::Malformed)?;
            if flags & FLAG_LZ4 != 0 {
                let n = lz4_flex::block::decompress_into(input, out)
                    .map_err(|_| DecodeError::Malformed)?;
                if n != raw_len {
                    return Err(DecodeError::Malformed);
                }
            } else {
                self.table
                    .decode(input, out, &hot_ends)
                    .ok_or(DecodeError::Malformed)?;
            }
            &self.tokens[..raw_len]
        };
        let hot_len = hot_ends[hot::CLASSES - 1];
        let (hot_bytes, tokens) = tokens
            .split_at_checked(hot_len)
            .ok_or(DecodeError::Malformed)?;
        apply_tokens(tokens, target, raw, mode)?;
        if models {
            self.hot
                .apply(hot_bytes, target, mode == Apply::Forward)
                .ok_or(DecodeError::Malformed)?;
            self.counters.finish(&saved, target, mode == Apply::Forward);
        }
        if let Some((to, from, len)) = mirror {
            if mode == Apply::Backward {
                target[to..to + len].copy_from_slice(&kept[..len]);
            } else if from_new {
                for i in 0..len {
                    target[to + i] = target[to + i].wrapping_add(target[from + i]);
                }
            }
        }
        Ok(())
    }
}

/// Reads the group metadata after a keyframe's code: value blocks, hot positions, counters,
/// mirror.
fn read_group_meta(
    input: &mut &[u8],
    state_len: usize,
    raw: &mut RawBlocks,
    hot: &mut HotSet,
    counters: &mut Counters,
    mirror: &mut Mirror,
) -> Result<(), DecodeError> {
    raw.read(input).ok_or(DecodeError::Malformed)?;
    hot.read(input, state_len).ok_or(DecodeError::Malformed)?;
    counters.read(input).ok_or(DecodeError::Malformed)?;
    mirror.read(input).ok_or(DecodeError::Malformed)
}

/// Checks the header and checksum; returns the flags and the payload.
pub fn verify(record: &[u8]) -> Result<(u8, &[u8]), DecodeError> {
    if record.len() < HEADER_LEN {
        return Err(DecodeError::Malformed);
    }
    let stored = u16::from_le_bytes([record[1], record[2]]);
    let payload = &record[HEADER_LEN..];
    let computed = checksum(payload);
    if stored != computed {
        return Err(DecodeError::Checksum { stored, computed });
    }
    Ok((record[0], payload))
}

pub fn is_keyframe(record: &[u8]) -> bool {
    record
        .first()
        .is_some_and(|flags| flags & FLAG_KEYFRAME != 0)
}

/// A 16-bit check of the stored bytes, eight bytes per multiply: catches ring bookkeeping
/// bugs (a record read from the wrong offset or overwritten) at negligible cost.
pub fn checksum(bytes: &[u8]) -> u16 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h: u64 = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("chunk of 8"));
        h = (h ^ word).wrapping_mul(K).rotate_left(29);
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = (h ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    (h >> 48) as u16 ^ (h >> 16) as u16
}

/// Appends the zero-run tokens of `cur - base` to `out`; when `sync_base`, also copies
/// every differing byte of `cur` into `base`. Plain differences everywhere.
pub fn tokenize_diff(base: &mut [u8], cur: &[u8], out: &mut Vec<u8>, sync_base: bool) {
    tokenize(base, cur, out, sync_base, None, None, None);
}

/// Appends the zero-run tokens of `cur` against `base` to `out`: `cur - base`, except in the blocks
/// of `raw`, which carry `cur` itself. When `sync_base`, `base` becomes `cur`. `counts`
/// (when given) counts every byte that differs.
///
/// Equal 2 KiB spans, then equal 64-byte blocks, are skipped with one slice comparison
/// each (a vectorised memcmp), which keeps a capture of a ~145 KiB state with ~100 changed
/// bytes at a few µs. Value blocks are never skipped: their records must hold them.
pub fn tokenize(
    base: &mut [u8],
    cur: &[u8],
    out: &mut Vec<u8>,
    sync_base: bool,
    raw: Option<&RawBlocks>,
    mut stats: Option<&mut BlockStats>,
    mut counts: Option<&mut ChangeCounts>,
) {
    assert_eq!(
        base.len(),
        cur.len(),
        "difference of states of different sizes"
    );
    const BLOCK: usize = 64;
    const SPAN: usize = 2048;
    let raw = raw.filter(|r| !r.is_empty());
    let by_value = |i: usize| raw.is_some_and(|r| r.contains_byte(i));
    let len = cur.len();
    // End of the bytes already described by tokens (start of the current zero gap).
    let mut emitted = 0usize;
    // The literal being grown: [lit_start, lit_end).
    let mut lit: Option<(usize, usize)> = None;

    let mut block_start = 0;
    while block_start < len {
        if block_start % SPAN == 0 {
            let span_end = (block_start + SPAN).min(len);
            if !raw.is_some_and(|r| r.any_in(block_start, span_end))
                && base[block_start..span_end] == cur[block_start..span_end]
            {
                block_start = span_end;
                continue;
            }
        }
        let block_end = (block_start + BLOCK).min(len);
        if !raw.is_some_and(|r| r.any_in(block_start, block_end))
            && base[block_start..block_end] == cur[block_start..block_end]
        {
            block_start = block_end;
            continue;
        }
        let mut word_start = block_start;
        while word_start < block_end {
            let word_end = (word_start + 8).min(block_end);
            let (first, last) = if word_end - word_start == 8 {
                let a = u64::from_le_bytes(base[word_start..word_end].try_into().expect("8"));
                let b = u64::from_le_bytes(cur[word_start..word_end].try_into().expect("8"));
                // A word never straddles two value blocks' boundary (32 is a multiple of 8).
                let x = if by_value(word_start) { b } else { a ^ b };
                if x == 0 {
                    word_start = word_end;
                    continue;
                }
                (
                    word_start + (x.trailing_zeros() / 8) as usize,
                    word_start + 7 - (x.leading_zeros() / 8) as usize,
                )
            } else {
                // Tail shorter than a word (only at the very end of the state).
                let mut first = None;
                let mut last = 0;
                for i in word_start..word_end {
                    let nonzero = if by_value(i) {
                        cur[i] != 0
                    } else {
                        base[i] != cur[i]
                    };
                    if nonzero {
                        first.get_or_insert(i);
                        last = i;
                    }
                }
                match first {
                    Some(first) => (first, last),
                    None => {
                        word_start = word_end;
                        continue;
                    }
                }
            };
            lit = match lit {
                Some((start, end)) if first < end + MERGE_GAP => Some((start, last + 1)),
                Some((start, end)) => {
                    emit_literal(
                        base,
                        cur,
                        out,
                        (emitted, start, end),
                        sync_base,
                        raw,
                        (stats.as_deref_mut(), counts.as_deref_mut()),
                    );
                    emitted = end;
                    Some((first, last + 1))
                }
                None => Some((first, last + 1)),
            };
            word_start = word_end;
        }
        block_start = block_end;
    }
    if let Some((start, end)) = lit {
        emit_literal(
            base,
            cur,
            out,
            (emitted, start, end),
            sync_base,
            raw,
            (stats, counts),
        );
    }
    if sync_base && let Some(raw) = raw {
        // Value blocks: bytes that became zero were not in any literal.
        for b in raw.blocks() {
            let start = b * raw_blocks::BLOCK;
            let end = (start + raw_blocks::BLOCK).min(len);
            base[start..end].copy_from_slice(&cur[start..end]);
        }
    }
}

fn emit_literal(
    base: &mut [u8],
    cur: &[u8],
    out: &mut Vec<u8>,
    (emitted, start, end): (usize, usize, usize),
    sync_base: bool,
    raw: Option<&RawBlocks>,
    (stats, counts): (Option<&mut BlockStats>, Option<&mut ChangeCounts>),
) {
    put_varint(out, (start - emitted) as u64);
    put_varint(out, (end - start) as u64);
    match raw {
        None => out.extend(
            base[start..end]
                .iter()
                .zip(&cur[start..end])
                .map(|(a, b)| b.wrapping_sub(*a)),
        ),
        Some(raw) => out.extend((start..end).map(|i| {
            if raw.contains_byte(i) {
                cur[i]
            } else {
                cur[i].wrapping_sub(base[i])
            }
        })),
    }
    if let Some(stats) = stats {
        for i in start..end {
            stats.note(i, base[i] ^ cur[i]);
        }
    }
    if let Some(counts) = counts {
        for i in start..end {
            if base[i] != cur[i] {
                counts.note(i);
            }
        }
    }
    if sync_base {
        base[start..end].copy_from_slice(&cur[start..end]);
    }
}

/// Applies a token stream to `target`: adds the differences (forward) or subtracts them
/// (backward); value blocks as `mode` says (see [`Apply`]).
pub fn apply_tokens(
    mut tokens: &[u8],
    target: &mut [u8],
    raw: Option<&RawBlocks>,
    mode: Apply,
) -> Result<(), DecodeError> {
    let raw = raw.filter(|r| !r.is_empty());
    if let Some(raw) = raw
        && mode != Apply::Backward
    {
        for b in raw.blocks() {
            let start = b * raw_blocks::BLOCK;
            let end = (start + raw_blocks::BLOCK).min(target.len());
            target
                .get_mut(start..end)
                .ok_or(DecodeError::Malformed)?
                .fill(0);
        }
    }
    if raw.is_none() && mode == Apply::ValuesOnly {
        return Ok(());
    }
    let mut pos = 0usize;
    while !tokens.is_empty() {
        let gap = get_varint(&mut tokens).ok_or(DecodeError::Malformed)? as usize;
        let len = get_varint(&mut tokens).ok_or(DecodeError::Malformed)? as usize;
        let start = pos.checked_add(gap).ok_or(DecodeError::Malformed)?;
        let end = start.checked_add(len).ok_or(DecodeError::Malformed)?;
        let dst = target.get_mut(start..end).ok_or(DecodeError::Malformed)?;
        let src = tokens.get(..len).ok_or(DecodeError::Malformed)?;
        match (raw, mode) {
            (None, Apply::Backward) => {
                for (d, s) in dst.iter_mut().zip(src) {
                    *d = d.wrapping_sub(*s);
                }
            }
            (None, _) => {
                for (d, s) in dst.iter_mut().zip(src) {
                    *d = d.wrapping_add(*s);
                }
            }
            (Some(raw), _) => {
                for (k, (d, s)) in dst.iter_mut().zip(src).enumerate() {
                    let value = raw.contains_byte(start + k);
                    match mode {
                        // Value bytes were zeroed above: adding sets them.
                        Apply::Forward => *d = d.wrapping_add(*s),
                        Apply::Backward if !value => *d = d.wrapping_sub(*s),
                        Apply::ValuesOnly if value => *d = d.wrapping_add(*s),
                        _ => {}
                    }
                }
            }
        }
        tokens = &tokens[len..];
        pos = end;
    }
    Ok(())
}

/// Bytes `put_varint` writes for `value`.
pub fn varint_len(value: u64) -> usize {
    (64 - (value | 1).leading_zeros() as usize).div_ceil(7)
}

/// LEB128: 7 bits per byte, low bits first.
pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

pub fn get_varint(input: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = input.split_first()?;
        *input = rest;
        value |= u64::from(byte & 0x7F) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use backspin_test_support::SplitMix64;

    fn roundtrip(a: &[u8], b: &[u8]) {
        let mut enc = Encoder::new(a.len());
        let mut dec = Decoder::new(a.len());
        let key = enc.encode_keyframe(a).to_vec();
        enc.commit_keyframe();
        dec.load_meta(0, &key).unwrap();
        let mut base = a.to_vec();
        let record = enc.encode_delta(&mut base, b).to_vec();
        assert_eq!(base, b, "sync_base must leave base == cur");
        let mut x = a.to_vec();
        dec.apply(&record, &mut x, Apply::Forward).unwrap();
        assert_eq!(x, b, "forward patch");
        dec.apply(&record, &mut x, Apply::Backward).unwrap();
        assert_eq!(x, a, "backward patch");
    }

    #[test]
    fn sparse_and_dense_changes_round_trip() {
        let a: Vec<u8> = (0..10_007u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut b = a.clone();
        roundtrip(&a, &b);
        for i in [0, 1, 5, 63, 64, 65, 200, 203, 1000, 10_006] {
            b[i] ^= 0x5A;
        }
        roundtrip(&a, &b);
        let c: Vec<u8> = a.iter().map(|x| x.wrapping_add(1)).collect();
        roundtrip(&a, &c);
    }

    #[test]
    fn sparse_delta_is_small() {
        let a = vec![0u8; 150_000];
        let mut b = a.clone();
        for i in (0..150_000).step_by(1500) {
            b[i] = 1;
        }
        let mut enc = Encoder::new(a.len());
        let mut base = a.clone();
        let len = enc.encode_delta(&mut base, &b).len();
        assert!(len < 400, "100 changed bytes took {len} bytes");
    }

    #[test]
    fn corrupt_record_is_detected() {
        let a = vec![0u8; 1000];
        let mut b = a.clone();
        b[10] = 3;
        let mut enc = Encoder::new(a.len());
        let mut record = enc.encode_delta(&mut a.clone(), &b).to_vec();
        *record.last_mut().unwrap() ^= 1;
        let mut dec = Decoder::new(a.len());
        assert!(dec.apply(&record, &mut a.clone(), Apply::Forward).is_err());
    }

    #[test]
    fn huffman_deltas_after_a_keyframe_decode_with_its_code() {
        let len = 20_000;
        let mut enc = Encoder::new(len);
        let mut dec = Decoder::new(len);
        let mut base = vec![0u8; len];
        let mut state = vec![0u8; len];
        // Counter-like churn at scattered places: small differences, little repetition.
        let mut rng = SplitMix64::new(12345);
        let mut step = |state: &mut Vec<u8>, _k: usize| {
            for _ in 0..150 {
                let seed = rng.next_u64();
                let j = (seed >> 33) as usize % len;
                state[j] = state[j].wrapping_add(1 + (seed >> 20) as u8 % 3);
            }
        };
        for k in 0..200 {
            step(&mut state, k);
            enc.encode_delta(&mut base, &state);
        }
        let key = enc.encode_keyframe(&state).to_vec();
        enc.commit_keyframe();
        assert!(!enc.code_is_flat());
        let before = state.clone();
        step(&mut state, 7);
        let record = enc.encode_delta(&mut base, &state).to_vec();
        assert!(record[0] & FLAG_HUFFMAN != 0, "flags {:#x}", record[0]);
        let mut x = before.clone();
        assert_eq!(
            dec.apply(&record, &mut x, Apply::Forward),
            Err(DecodeError::MissingCode)
        );
        dec.load_meta(1, &key).unwrap();
        dec.apply(&record, &mut x, Apply::Forward).unwrap();
        assert_eq!(x, state);
        // The keyframe itself rebuilds the state from zeros.
        let mut y = vec![0u8; len];
        dec.apply(&key, &mut y, Apply::Forward).unwrap();
        assert_eq!(y, before);
    }

    /// OAM copied by "DMA" from a WRAM page's previous value: the mirror is chosen, OAM then
    /// costs nothing, and records still move the state both ways (backward via the landing
    /// record's `ValuesOnly`).
    #[test]
    fn mirrored_oam_is_learned_and_walks_both_ways() {
        mirrored_oam(false);
        mirrored_oam(true);
    }

    /// `same_frame`: OAM is copied after the shadow moved (the source's new value).
    fn mirrored_oam(same_frame: bool) {
        let len = size_of::<backspin_core::State>();
        let spec = crate::hot::STATE_MIRROR;
        let shadow = spec.first_source + 5 * spec.step;
        let mut enc = Encoder::new(len);
        let mut dec = Decoder::new(len);
        let mut rng = SplitMix64::new(99);
        let mut next = move |s: &mut Vec<u8>| {
            // OAM = the shadow as it was; then the shadow moves (sprites drift by one).
            if !same_frame {
                s.copy_within(shadow..shadow + spec.len, spec.target);
            }
            for _ in 0..12 {
                let seed = rng.next_u64();
                let i = shadow + (seed >> 33) as usize % spec.len;
                s[i] = s[i].wrapping_add(if seed & 1 == 0 { 1 } else { 255 });
            }
            if same_frame {
                s.copy_within(shadow..shadow + spec.len, spec.target);
            }
        };
        let mut states = vec![vec![0u8; len]];
        let mut base = states[0].clone();
        enc.encode_keyframe(&states[0]);
        enc.commit_keyframe();
        for k in 1..200 {
            let mut s = states[k - 1].clone();
            next(&mut s);
            enc.encode_delta(&mut base, &s);
            states.push(s);
        }
        let key = enc.encode_keyframe(&states[199]).to_vec();
        enc.commit_keyframe();
        assert_eq!(enc.mirror.range(), Some((spec.target, shadow, spec.len)));
        assert_eq!(enc.mirror.codes_from_new(), same_frame);
        let mut records = Vec::new();
        let mut plain = 0;
        for k in 200..220 {
            let mut s = states[k - 1].clone();
            next(&mut s);
            records.push(enc.encode_delta(&mut base, &s).to_vec());
            states.push(s);
            let mut scratch = states[k - 1].clone();
            let mut tokens = Vec::new();
            tokenize_diff(&mut scratch, &states[k], &mut tokens, false);
            plain += tokens.len();
        }
        let coded: usize = records.iter().map(Vec::len).sum();
        assert!(
            coded * 3 < plain * 2,
            "{coded} bytes vs {plain} as plain tokens"
        );
        dec.load_meta(199, &key).unwrap();
        let mut x = states[199].clone();
        for (j, r) in records.iter().enumerate() {
            dec.apply(r, &mut x, Apply::Forward).unwrap();
            assert!(x == states[200 + j], "forward to {}", 200 + j);
        }
        for r in records[5..].iter().rev() {
            dec.apply(r, &mut x, Apply::Backward).unwrap();
        }
        dec.apply(&records[4], &mut x, Apply::ValuesOnly).unwrap();
        assert!(x == states[204], "back to 204");
    }

    /// A region rewritten every frame with sparse values gets stored by value; records
    /// still move the state both ways (backward: differences, then the landing record's
    /// values).
    #[test]
    fn value_blocks_are_chosen_and_walk_both_ways() {
        let len = 4096;
        let mut enc = Encoder::new(len);
        let mut dec = Decoder::new(len);
        let mut rng = SplitMix64::new(7);
        let mut rand = move || (rng.next_u64() >> 33) as usize;
        // Bytes 1024..1280: a fresh sparse set of values every frame; elsewhere a counter.
        let frame = |k: usize, rand: &mut dyn FnMut() -> usize| {
            let mut s = vec![0u8; len];
            s[8] = k as u8;
            for _ in 0..12 {
                s[1024 + rand() % 256] = 1 + (rand() % 255) as u8;
            }
            s
        };
        let mut states = vec![frame(0, &mut rand)];
        let mut base = states[0].clone();
        let first_key = enc.encode_keyframe(&states[0]).to_vec();
        enc.commit_keyframe();
        for k in 1..100 {
            states.push(frame(k, &mut rand));
            enc.encode_delta(&mut base, &states[k]);
        }
        let key = enc.encode_keyframe(&states[99]).to_vec();
        enc.commit_keyframe();
        assert!(!enc.raw.is_empty(), "the churning region must be chosen");
        let mut records = Vec::new();
        for k in 100..110 {
            states.push(frame(k, &mut rand));
            records.push(enc.encode_delta(&mut base, &states[k]).to_vec());
        }
        let _ = first_key;
        dec.load_meta(99, &key).unwrap();
        let mut x = states[99].clone();
        for (j, r) in records.iter().enumerate() {
            dec.apply(r, &mut x, Apply::Forward).unwrap();
            assert_eq!(x, states[100 + j], "forward to {}", 100 + j);
        }
        // Back from 109 to 103: undo 109..=104, then 103's own values.
        for r in records[4..].iter().rev() {
            dec.apply(r, &mut x, Apply::Backward).unwrap();
        }
        dec.apply(&records[3], &mut x, Apply::ValuesOnly).unwrap();
        assert_eq!(x, states[103]);
    }
}
