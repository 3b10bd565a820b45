//! Deflate for keyframes: a keyframe is the whole state's token stream plus its group's
//! Huffman tables, written once per group, where LZ4 (no entropy stage) leaves much on the
//! table (`docs/rewind.md` has the sizes). Deltas stay with LZ4 and the group's Huffman
//! code: deflate's time would show on every frame there.

use miniz_oxide::deflate::core::{
    CompressorOxide, TDEFLFlush, TDEFLStatus, compress, create_comp_flags_from_zip_params,
};
use miniz_oxide::inflate::decompress_slice_iter_to_slice;

/// Deflate level: higher levels barely shrink the history for several times the work, all
/// of it in the one frame that writes the keyframe.
const LEVEL: i32 = 1;

/// A deflate compressor kept between keyframes (its dictionary and tables are allocated
/// once, with the encoder).
pub(super) struct Deflater {
    compressor: Box<CompressorOxide>,
}

impl Deflater {
    pub(super) fn new() -> Deflater {
        // Raw deflate (no zlib header or Adler-32: the record has its own checksum).
        let flags = create_comp_flags_from_zip_params(LEVEL, -15, 0);
        Deflater {
            compressor: Box::new(CompressorOxide::new(flags)),
        }
    }

    /// Deflates `input` into `out` (its whole length is the room); returns the stream's
    /// length, or `None` if it does not fit.
    pub(super) fn pack(&mut self, input: &[u8], out: &mut [u8]) -> Option<usize> {
        self.compressor.reset();
        let (status, read, written) =
            compress(&mut self.compressor, input, out, TDEFLFlush::Finish);
        (status == TDEFLStatus::Done && read == input.len()).then_some(written)
    }
}

/// Inflates the raw deflate stream `input` into exactly `out`; `None` if it is malformed or
/// its length differs.
pub(super) fn unpack(input: &[u8], out: &mut [u8]) -> Option<()> {
    let n = decompress_slice_iter_to_slice(out, std::iter::once(input), false, true).ok()?;
    (n == out.len()).then_some(())
}
