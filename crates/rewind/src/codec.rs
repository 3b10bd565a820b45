//! Snapshot encoding: byte differences against the previous snapshot, zero-run tokens, then
//! LZ4 or Huffman when it pays.
//!
//! Why this shape (measurements in `docs/rewind.md`): consecutive per-frame states differ
//! in tens to hundreds of bytes out of ~145 KiB, so their difference is almost all zeros.
//! LZ4 alone spends about one byte per 255 zeros;
//! a zero-run tokeniser first removes the zeros, and the entropy stage then only sees the
//! few changed bytes. A patch is applied by adding its bytes (one frame forward) or
//! subtracting them (one frame back), so one record moves a state both ways in time.
//!
//! Differences are bytewise wrapping subtraction (`cur - old`, no borrow between bytes), not
//! XOR: a value stepping by one codes as 0x01 or 0xFF every time, where its XOR is 01, 03,
//! 07... as the low bits roll over.
//!
//! Before tokenising, a delta applies the models its keyframe group carries
//! ([`crate::hot`]): OAM is coded against the old value of its DMA source page, counters as
//! the zigzag of their step minus the expected step, and the bytes of the hot positions go
//! first, one per position, without token headers.
//!
//! Token stream: the hot bytes (deltas only), then the zero-run tokens (`tokens.rs`).
//!
//! The token stream is then stored raw, as an LZ4 block, or Huffman-coded with the code of
//! its keyframe group ([`crate::huffman`]), whichever is smallest.
//!
//! Record (what the ring stores for one snapshot):
//! ```text
//! byte 0      flags: bit 0 keyframe (the state itself: differences against zeros),
//!             bit 1 packed payload (an LZ4 block, or deflate with bit 3), bit 2 Huffman
//!             payload, bit 3 the packed parts are raw deflate streams, not LZ4 blocks
//!             (keyframes since it was added; older keyframes use LZ4)
//! bytes 1..3  u16 LE checksum of everything after it
//! [meta]      keyframes only, for the deltas that follow: varint length, varint packed
//!             length (0: stored as is), then the metadata or its packed form. Metadata:
//!             the Huffman codes (u64 LE mask of the contexts with a table, then 128 bytes
//!             of code-length nibbles per table), a varint 0 (where
//!             a retired option, blocks stored by value, kept its list), the hot positions
//!             (varint count per class, then varint gaps per class), the counters (varint
//!             count, then per counter 0 = plain or 1 + expected step), the mirror (varint:
//!             0 = none, else 1 + number of the source page)
//! [varint]    token stream length, when the payload is packed or Huffman
//! payload     token stream, its packed form, or its Huffman bits
//! ```

use crate::hot::{
    self, ChangeCounts, CounterVotes, Counters, HotSet, MAX_COUNTERS, MAX_MIRROR_LEN, Mirror,
    MirrorVotes, STATE_COUNTERS, STATE_MIRROR,
};
use crate::huffman::{EncodeTable, TokenCode, TokenCounts, TokenDecoder};
use lz4_flex::block::CompressTable;

mod deflate;
#[cfg(test)]
mod tests;
mod tokens;

use backspin_core::WrittenPages;
use backspin_core::written_pages::{PAGE_BYTES, TRACKED_FROM, VRAM_FIRST_PAGE, VRAM_FROM};
use tokens::{
    BLOCK, SPAN, ZERO_MAP_BLOCKS, all_zero, apply_tokens, tokenize, tokenize_against_zeros,
};
pub use tokens::{ZeroBlocks, get_varint, max_token_len, put_varint, tokenize_diff, varint_len};
/// Token streams at most this long skip LZ4: it cannot win much on them and its hash-table
/// reset alone costs more than the bytes saved.
const LZ4_MIN_INPUT: usize = 96;
/// After this many deltas in a row where LZ4 lost, a delta's LZ4 attempt is skipped ...
const LZ4_LOSSES_BEFORE_SKIPPING: u32 = 8;
/// ... for this many deltas (then tried again): each attempt clears LZ4's 8 KiB hash table
/// and walks the stream, the costliest part of a capture on games whose deltas it rarely
/// shrinks below their Huffman size, while games that copy memory around win often.
const LZ4_SKIP: u32 = 16;
/// Streams at least this long always try LZ4 (a large delta, e.g. memory copied around, is
/// where it wins most, and the table reset is small beside it). Games that redraw part of
/// VRAM every frame make deltas of a few hundred bytes that LZ4 almost never shrinks below
/// their Huffman size: those go by the skipping rule above.
const LZ4_ALWAYS_FROM: usize = 1024;
/// Token bytes a group must have seen before its statistics replace the flat code.
const MIN_STATS_BYTES: u64 = 4096;

pub const FLAG_KEYFRAME: u8 = 1 << 0;
pub const FLAG_LZ4: u8 = 1 << 1;
pub const FLAG_HUFFMAN: u8 = 1 << 2;
/// The record's packed parts (a keyframe's metadata, and its payload with `FLAG_LZ4`) are
/// deflate streams: every keyframe written since deflate was added.
pub const FLAG_DEFLATE: u8 = 1 << 3;
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

/// Largest keyframe metadata: Huffman tables, the retired value-block count, hot
/// positions, counters, mirror.
const MAX_META: usize = TokenCode::BYTES + 1 + 3 * hot::MAX_HOT + 10 * (MAX_COUNTERS + 1) + 16;

/// Worst-case Huffman-coded token stream for a state of `len` bytes (codes of at most
/// `MAX_LEN` bits a byte).
fn max_coded_len(len: usize) -> usize {
    crate::huffman::coded_room(max_token_len(len))
}

/// Worst-case record length for a state of `len` bytes.
pub fn max_record_len(len: usize) -> usize {
    HEADER_LEN + 6 + MAX_META + 16 + lz4_flex::block::get_maximum_output_size(max_token_len(len))
}

/// Reusable buffers so that encoding a snapshot never allocates.
pub struct Encoder {
    tokens: Vec<u8>,
    /// The token stream Huffman-coded with `code` (deltas, once a code is learned).
    coded: Vec<u8>,
    record: Vec<u8>,
    zeros: Vec<u8>,
    small_table: CompressTable,
    large_table: CompressTable,
    /// The code deltas are written with: the one stored in the latest keyframe.
    code: TokenCode,
    /// `code.is_flat()`, kept: asked every capture, and a scan of every context's table.
    code_flat: bool,
    /// `code` laid out for the capture's Huffman pass, with the counts of the deltas it
    /// coded since they were last flushed into `counts`.
    table: Box<EncodeTable>,
    /// The code the pending keyframe carries, until `commit_keyframe`.
    pending: TokenCode,
    /// Byte statistics of the token streams since the latest keyframe (with those still
    /// held in `table`: `EncodeTable::flush_counts` before reading them).
    counts: TokenCounts,
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
    /// Deltas in a row whose LZ4 attempt lost, and deltas left to skip the attempt for
    /// (`LZ4_SKIP`); encoder-side only (a record's flags say how it is stored).
    lz4_losses: u32,
    lz4_skip: u32,
    /// Keyframe metadata being written, and its packed form (then the packed token stream).
    meta: Vec<u8>,
    packed_meta: Vec<u8>,
    deflater: deflate::Deflater,
}

impl Encoder {
    pub fn new(state_len: usize) -> Encoder {
        Encoder {
            tokens: Vec::with_capacity(max_token_len(state_len)),
            coded: vec![0; max_coded_len(state_len)],
            record: Vec::with_capacity(max_record_len(state_len)),
            zeros: vec![0; state_len],
            small_table: CompressTable::small(),
            large_table: CompressTable::large(),
            code: TokenCode::flat(),
            code_flat: true,
            table: EncodeTable::new(&TokenCode::flat()),
            pending: TokenCode::flat(),
            counts: TokenCounts::default(),
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
            lz4_losses: 0,
            lz4_skip: 0,
            meta: Vec::with_capacity(MAX_META),
            packed_meta: Vec::with_capacity(max_token_len(state_len).max(MAX_META)),
            deflater: deflate::Deflater::new(),
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

    /// True while deltas are written without a learned code (no statistics yet).
    pub fn code_is_flat(&self) -> bool {
        self.code_flat
    }

    /// Encodes `cur` against `base` (the previous snapshot) as a delta record and copies
    /// the changed bytes of `cur` into `base` in the same pass (so `base == cur`
    /// afterwards). Returns the record, valid until the next call.
    pub fn encode_delta(&mut self, base: &mut [u8], cur: &[u8]) -> &[u8] {
        self.encode_delta_written(base, cur, WrittenPages::ALL)
    }

    /// [`Encoder::encode_delta`] of two states (`State` bytes) that differ at most in the
    /// tracked pages `written` and in the untracked part before them (see
    /// `backspin_core::written_pages`): the other pages are not compared. The record is
    /// the same as `encode_delta`'s.
    pub fn encode_delta_written(
        &mut self,
        base: &mut [u8],
        cur: &[u8],
        written: WrittenPages,
    ) -> &[u8] {
        let mut nothing_known = ZeroBlocks::NONE;
        self.encode_delta_known(base, cur, written, &mut nothing_known)
    }

    /// A map for [`Encoder::encode_delta_known`] of `base`'s zero blocks (every block but
    /// those the models rewrite in the base before comparing).
    pub fn zero_blocks(&self, base: &[u8]) -> ZeroBlocks {
        let mirror = self.mirror.target_region();
        let mut zeros = ZeroBlocks::excluding(self.counters.regions().chain(mirror));
        zeros.learn(base);
        zeros
    }

    /// [`Encoder::encode_delta_written`] with `zeros`, what is known of `base`'s zero blocks
    /// ([`Encoder::zero_blocks`]; kept up to date for the next delta against it): a block
    /// known zero is compared by reading `cur` alone. The record is the same.
    pub fn encode_delta_known(
        &mut self,
        base: &mut [u8],
        cur: &[u8],
        written: WrittenPages,
        zeros: &mut ZeroBlocks,
    ) -> &[u8] {
        // The tokenizer's spans are the core's pages, so a span is a page; the zero map
        // covers the untracked part.
        const _: () = assert!(SPAN == PAGE_BYTES);
        const _: () = assert!(TRACKED_FROM <= ZERO_MAP_BLOCKS * BLOCK);
        self.tokens.clear();
        // The mirror first (it copies the old source into `base`'s region), then counters
        // (they rewrite `base` so that `cur - base` is the coded step), then the hot bytes
        // (which leave `base` equal to `cur` there), then the rest. Decoding undoes them in
        // the same order.
        self.mirror_votes.vote(base, cur);
        self.mirror.encode(base, cur);
        self.counters.encode(base, cur, &mut self.votes);
        self.hot.gather(base, cur, &mut self.tokens);
        self.change_counts.note_hot(&self.tokens);
        tokenize(
            base,
            cur,
            &mut self.tokens,
            true,
            Some(&mut self.change_counts),
            known_equal(written, base, cur, zeros),
            Some(zeros),
        );
        self.change_counts.end_frame();
        // The group's statistics, and the stream's Huffman size, in one walk.
        let huffman_len = if self.code_flat {
            self.counts.add(&self.tokens, self.hot.ends());
            None
        } else {
            Some(self.table.count_and_encode(
                &mut self.counts,
                &self.tokens,
                self.hot.ends(),
                &mut self.coded,
            ))
        };
        self.record.clear();
        self.record.extend_from_slice(&[0, 0, 0]);
        let flags = self.store_tokens(huffman_len);
        self.finish(flags)
    }

    /// Encodes `cur` whole (against zeros) as a keyframe record carrying a new code
    /// built from the statistics since the previous keyframe. The encoder keeps using its
    /// old code until [`Encoder::commit_keyframe`] (call it once the record is stored).
    pub fn encode_keyframe(&mut self, cur: &[u8]) -> &[u8] {
        self.table.flush_counts(&mut self.counts);
        self.pending = if self.counts.total() >= MIN_STATS_BYTES {
            TokenCode::from_counts(&self.counts)
        } else {
            self.code.clone()
        };
        if self.use_hot {
            self.change_counts.fold_hot(&self.hot);
            self.change_counts.choose(&mut self.pending_hot, |_| false);
        } else {
            self.pending_hot.clear();
        }
        if self.use_mirror {
            self.mirror_votes.choose(&mut self.pending_mirror);
        } else {
            self.pending_mirror.clear();
        }
        if self.use_counters {
            self.votes.choose(&mut self.pending_counters);
        } else {
            self.pending_counters.disable_all();
        }
        self.tokens.clear();
        let mut zeros = std::mem::take(&mut self.zeros);
        tokenize_against_zeros(&mut zeros, cur, &mut self.tokens);
        self.zeros = zeros;
        self.record.clear();
        self.record.extend_from_slice(&[0, 0, 0]);
        self.meta.clear();
        self.pending.write(&mut self.meta);
        // Where a retired option listed blocks stored by value: none.
        put_varint(&mut self.meta, 0);
        self.pending_hot.write(&mut self.meta);
        self.pending_counters.write(&mut self.meta);
        self.pending_mirror.write(&mut self.meta);
        self.store_meta();
        let flags = self.store_keyframe_tokens() | FLAG_KEYFRAME | FLAG_DEFLATE;
        self.finish(flags)
    }

    /// Appends the keyframe metadata in `meta` to the record, deflated when that is
    /// smaller (the Huffman tables' nibbles).
    fn store_meta(&mut self) {
        let len = self.meta.len();
        put_varint(&mut self.record, len as u64);
        // Room for no more than the raw form (within capacity: no reallocation).
        self.packed_meta.resize(len, 0);
        match self.deflater.pack(&self.meta, &mut self.packed_meta) {
            Some(packed) if packed + varint_len(packed as u64) < len + 1 => {
                put_varint(&mut self.record, packed as u64);
                self.record.extend_from_slice(&self.packed_meta[..packed]);
            }
            _ => {
                put_varint(&mut self.record, 0);
                self.record.extend_from_slice(&self.meta);
            }
        }
    }

    /// Appends a keyframe's token stream, deflated when that is smaller; returns the flags.
    fn store_keyframe_tokens(&mut self) -> u8 {
        let raw_len = self.tokens.len();
        self.packed_meta.resize(raw_len, 0);
        match self.deflater.pack(&self.tokens, &mut self.packed_meta) {
            Some(packed) if packed + varint_len(raw_len as u64) < raw_len => {
                put_varint(&mut self.record, raw_len as u64);
                self.record.extend_from_slice(&self.packed_meta[..packed]);
                FLAG_LZ4
            }
            _ => {
                self.record.extend_from_slice(&self.tokens);
                0
            }
        }
    }

    /// The keyframe just encoded was stored: later deltas use its code.
    pub fn commit_keyframe(&mut self) {
        self.code = self.pending.clone();
        self.code_flat = self.code.is_flat();
        self.table.rebuild(&self.code);
        self.hot.copy_from(&self.pending_hot);
        self.counters.copy_from(&self.pending_counters);
        self.mirror.copy_from(&self.pending_mirror);
        self.counts = TokenCounts::default();
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
            &mut self.hot,
            &mut self.counters,
            &mut self.mirror,
        )?;
        self.code = code;
        self.code_flat = self.code.is_flat();
        self.table.rebuild(&self.code);
        self.counts = TokenCounts::default();
        self.change_counts.reset();
        self.votes.reset();
        self.mirror_votes.reset();
        Ok(())
    }

    /// Appends a delta's token stream to the record in its smallest form; returns the
    /// flags. `huffman_bytes`: the stream's size coded with the group's learned code (once
    /// a code is learned).
    fn store_tokens(&mut self, huffman_bytes: Option<usize>) -> u8 {
        let raw_len = self.tokens.len();
        let prefix = self.record.len();
        let mut best = (raw_len, 0u8);
        let huffman_len = if let Some(bytes) = huffman_bytes {
            let n = bytes + varint_len(raw_len as u64);
            if n < best.0 {
                best = (n, FLAG_HUFFMAN);
            }
            n
        } else {
            usize::MAX
        };
        // Before a code is learned LZ4 is always tried; after, unless it keeps losing.
        let try_lz4 = raw_len > LZ4_MIN_INPUT
            && (huffman_bytes.is_none() || raw_len >= LZ4_ALWAYS_FROM || !self.skip_lz4());
        if try_lz4 {
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
            let won = n < best.0;
            if huffman_bytes.is_some() {
                self.note_lz4_attempt(won);
            }
            if won {
                self.record.truncate(start + written);
                return FLAG_LZ4;
            }
            self.record.truncate(prefix);
        }
        if let (FLAG_HUFFMAN, Some(bytes)) = (best.1, huffman_bytes) {
            debug_assert!(huffman_len < raw_len);
            put_varint(&mut self.record, raw_len as u64);
            self.record.extend_from_slice(&self.coded[..bytes]);
            return FLAG_HUFFMAN;
        }
        self.record.extend_from_slice(&self.tokens);
        0
    }

    /// Whether this delta skips its LZ4 attempt (LZ4 kept losing: see `LZ4_SKIP`).
    fn skip_lz4(&mut self) -> bool {
        let skip = self.lz4_skip > 0;
        self.lz4_skip = self.lz4_skip.saturating_sub(1);
        skip
    }

    /// Counts a delta's LZ4 attempt towards skipping the next ones.
    fn note_lz4_attempt(&mut self, won: bool) {
        if won {
            self.lz4_losses = 0;
        } else {
            self.lz4_losses += 1;
            if self.lz4_losses >= LZ4_LOSSES_BEFORE_SKIPPING {
                self.lz4_losses = LZ4_LOSSES_BEFORE_SKIPPING - 1;
                self.lz4_skip = LZ4_SKIP;
            }
        }
    }

    fn finish(&mut self, flags: u8) -> &[u8] {
        let sum = checksum(&self.record[HEADER_LEN..]);
        self.record[0] = flags;
        self.record[1..3].copy_from_slice(&sum.to_le_bytes());
        debug_assert!(self.record.len() <= self.record.capacity());
        &self.record
    }
}

/// The spans the tokenizer may skip without a look (bit `n`: span `n`), as `written` (the
/// tracked pages the core may have written) tells: the tracked ones nothing wrote, and the
/// untracked page VRAM begins in when no VRAM write noted it and its work RAM bytes are
/// equal (most frames of many games write no VRAM). Its VRAM bytes then go unread, and
/// every byte the capture reads evicts some of the emulation's. Work RAM bytes in blocks
/// `zeros` knows are zeros in `base` are compared by reading `cur` alone.
fn known_equal(written: WrittenPages, base: &[u8], cur: &[u8], zeros: &ZeroBlocks) -> u128 {
    let mut spans = !written.0 & (u128::MAX << TRACKED_FROM.div_ceil(SPAN));
    if VRAM_FIRST_PAGE < TRACKED_FROM / PAGE_BYTES && !written.contains(VRAM_FIRST_PAGE) {
        let work_ram = VRAM_FIRST_PAGE * PAGE_BYTES..VRAM_FROM;
        // The blocks of the work RAM bytes, first to last, within the page.
        let blocks = work_ram.len().div_ceil(BLOCK);
        const _: () = assert!((VRAM_FIRST_PAGE * PAGE_BYTES).is_multiple_of(BLOCK));
        let wanted = u32::MAX >> (32 - blocks);
        let equal = if zeros.span_bits(VRAM_FIRST_PAGE) & wanted == wanted {
            all_zero(&cur[work_ram])
        } else {
            base[work_ram.clone()] == cur[work_ram]
        };
        if equal {
            spans |= 1 << VRAM_FIRST_PAGE;
        }
    }
    spans
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
    unpack(flags, block, out)?;
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

/// How a delta record is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Apply {
    /// One capture later: differences added.
    Forward,
    /// One capture earlier: differences subtracted; the mirrored region is left for
    /// `Landing`.
    Backward,
    /// Only rebuild the mirrored region, from the record of the frame a backward walk
    /// lands on.
    Landing,
}

/// Reusable buffers for decoding records, and the models of one keyframe group.
pub struct Decoder {
    tokens: Vec<u8>,
    table: TokenDecoder,
    hot: HotSet,
    counters: Counters,
    mirror: Mirror,
    state_len: usize,
    /// Scratch for unpacking keyframe metadata.
    meta: Vec<u8>,
    /// Which keyframe's metadata is loaded (the caller's key, e.g. its frame).
    meta_key: Option<u64>,
    /// Huffman-coded deltas are decoded straight into the target (`decode_apply`); off,
    /// through the token buffer as every other record (the reference the tests compare).
    fused_apply: bool,
}

impl Decoder {
    pub fn new(state_len: usize) -> Decoder {
        Decoder {
            tokens: vec![0; max_token_len(state_len)],
            table: TokenDecoder::new(&TokenCode::flat()),
            hot: HotSet::new(),
            counters: Counters::new(&STATE_COUNTERS, state_len),
            mirror: Mirror::new(STATE_MIRROR, state_len),
            state_len,
            meta: vec![0; MAX_META],
            meta_key: None,
            fused_apply: true,
        }
    }

    /// Turns the fused decoding of Huffman-coded deltas on (the default) or off.
    #[cfg(test)]
    pub fn set_fused_apply(&mut self, on: bool) {
        self.fused_apply = on;
    }

    /// Turns decoding hot bytes two at a time (in the fused path) on (the default) or off.
    #[cfg(test)]
    pub fn set_pairs(&mut self, on: bool) {
        self.table.set_pairs(on);
    }

    pub fn meta_key(&self) -> Option<u64> {
        self.meta_key
    }

    /// Loads the code and models stored in `keyframe`, under `key`.
    pub fn load_meta(&mut self, key: u64, keyframe: &[u8]) -> Result<(), DecodeError> {
        self.meta_key = None;
        let (meta, _) = keyframe_meta(keyframe, &mut self.meta)?;
        let used = self.table.load(meta).ok_or(DecodeError::Malformed)?;
        let mut rest = &meta[used..];
        read_group_meta(
            &mut rest,
            self.state_len,
            &mut self.hot,
            &mut self.counters,
            &mut self.mirror,
        )?;
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
        if mode == Apply::Landing
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
        let hot_ends = if keyframe {
            [0; hot::CLASSES]
        } else {
            *self.hot.ends()
        };
        let mode = if keyframe { Apply::Forward } else { mode };
        let models = !keyframe && mode != Apply::Landing;
        let mut saved = [0u64; MAX_COUNTERS];
        // The mirrored region: forward, it starts from its source's old value (or from zero,
        // and the source's new value is added at the end); backward, it stays as it is (the
        // landing record's `Landing` rebuilds it).
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
        if models && flags & (FLAG_LZ4 | FLAG_HUFFMAN) == FLAG_HUFFMAN && self.fused_apply {
            // Most deltas: decoded straight into `target`, hot bytes included.
            let mut input = payload;
            let raw_len = get_varint(&mut input).ok_or(DecodeError::Malformed)? as usize;
            if raw_len > self.tokens.len() {
                return Err(DecodeError::Malformed);
            }
            let sign = if mode == Apply::Forward { 1 } else { 0xFF };
            self.table
                .decode_apply(
                    input,
                    raw_len,
                    &hot_ends,
                    self.hot.positions(),
                    target,
                    sign,
                )
                .ok_or(DecodeError::Malformed)?;
        } else {
            self.decode_and_apply(flags, payload, &hot_ends, target, mode, models)?;
        }
        if models {
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

    /// The token stream decoded into the scratch buffer, then applied: keyframes, LZ4 or
    /// raw deltas, a landing, and (with `fused_apply` off) every delta.
    fn decode_and_apply(
        &mut self,
        flags: u8,
        payload: &[u8],
        hot_ends: &[usize; hot::CLASSES],
        target: &mut [u8],
        mode: Apply,
        models: bool,
    ) -> Result<(), DecodeError> {
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
                unpack(flags, input, out)?;
            } else {
                self.table
                    .decode(input, out, hot_ends)
                    .ok_or(DecodeError::Malformed)?;
            }
            &self.tokens[..raw_len]
        };
        let hot_len = hot_ends[hot::CLASSES - 1];
        let (hot_bytes, tokens) = tokens
            .split_at_checked(hot_len)
            .ok_or(DecodeError::Malformed)?;
        apply_tokens(tokens, target, mode)?;
        if models {
            self.hot
                .apply(hot_bytes, target, mode == Apply::Forward)
                .ok_or(DecodeError::Malformed)?;
        }
        Ok(())
    }
}

/// Unpacks a packed part of a record with these flags into exactly `out`.
fn unpack(flags: u8, packed: &[u8], out: &mut [u8]) -> Result<(), DecodeError> {
    if flags & FLAG_DEFLATE != 0 {
        return deflate::unpack(packed, out).ok_or(DecodeError::Malformed);
    }
    let n = lz4_flex::block::decompress_into(packed, out).map_err(|_| DecodeError::Malformed)?;
    if n != out.len() {
        return Err(DecodeError::Malformed);
    }
    Ok(())
}

/// Reads the group metadata after a keyframe's code: hot positions, counters, mirror.
/// Before them, where a retired option listed blocks stored by value, the count must be 0
/// (records with value blocks were only ever written with that option on).
fn read_group_meta(
    input: &mut &[u8],
    state_len: usize,
    hot: &mut HotSet,
    counters: &mut Counters,
    mirror: &mut Mirror,
) -> Result<(), DecodeError> {
    if get_varint(input) != Some(0) {
        return Err(DecodeError::Malformed);
    }
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
