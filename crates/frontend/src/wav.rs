//! WAV output for `backspin run ROM --wav out.wav --seconds S`: the core's 48 kHz stereo
//! audio, rendered headless, as a 16-bit PCM RIFF file (the 44-byte canonical header).

use backspin_core::SAMPLE_RATE;
use std::io::{self, Write};
use std::path::Path;

/// Writes interleaved 16-bit `samples` with `channels` channels at `sample_rate` as WAV.
pub fn encode_wav(
    mut out: impl Write,
    samples: &[i16],
    channels: u16,
    sample_rate: u32,
) -> io::Result<()> {
    let too_long = || io::Error::new(io::ErrorKind::InvalidInput, "audio too long for a WAV file");
    let data_bytes = u32::try_from(samples.len())
        .ok()
        .and_then(|n| n.checked_mul(2))
        .filter(|&n| n <= u32::MAX - 36)
        .ok_or_else(too_long)?;
    let block_align = channels.checked_mul(2).ok_or_else(too_long)?;
    let byte_rate = sample_rate
        .checked_mul(u32::from(block_align))
        .ok_or_else(too_long)?;

    let mut header = Vec::with_capacity(44);
    header.extend_from_slice(b"RIFF");
    header.extend_from_slice(&(36 + data_bytes).to_le_bytes());
    header.extend_from_slice(b"WAVEfmt ");
    header.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    header.extend_from_slice(&1u16.to_le_bytes()); // PCM
    header.extend_from_slice(&channels.to_le_bytes());
    header.extend_from_slice(&sample_rate.to_le_bytes());
    header.extend_from_slice(&byte_rate.to_le_bytes());
    header.extend_from_slice(&block_align.to_le_bytes());
    header.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    header.extend_from_slice(b"data");
    header.extend_from_slice(&data_bytes.to_le_bytes());
    out.write_all(&header)?;

    let mut data = Vec::with_capacity(samples.len() * 2);
    for sample in samples {
        data.extend_from_slice(&sample.to_le_bytes());
    }
    out.write_all(&data)?;
    out.flush()
}

/// Writes stereo 48 kHz `samples` (as `AudioOut` produces them) to a WAV file at `path`.
pub fn write_wav(path: &Path, samples: &[i16]) -> io::Result<()> {
    let file = std::fs::File::create(path)?;
    encode_wav(io::BufWriter::new(file), samples, 2, SAMPLE_RATE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use backspin_core::{Core, M_CYCLES_PER_FRAME, M_CYCLES_PER_SECOND};

    /// Runs `core` for `seconds` of emulated time and returns the audio it made (interleaved
    /// stereo, 48 kHz). Audio already waiting in the core is included.
    fn render_audio(core: &mut Core, seconds: f64) -> Vec<i16> {
        let m_cycles = (seconds.max(0.0) * M_CYCLES_PER_SECOND as f64) as u64;
        let end = core.m_cycles().saturating_add(m_cycles);
        let mut samples =
            Vec::with_capacity((seconds.max(0.0) * f64::from(SAMPLE_RATE) * 2.2) as usize);
        while core.m_cycles() < end {
            // A frame at a time, so the core's own buffer never fills up.
            let next = end.min(core.m_cycles() + M_CYCLES_PER_FRAME);
            core.run_until(next);
            core.output().audio.drain_i16(&mut samples);
        }
        samples
    }

    #[test]
    fn header_is_canonical_pcm() {
        let mut bytes = Vec::new();
        encode_wav(&mut bytes, &[1, -2, 3, -4], 2, 48_000).unwrap();
        assert_eq!(bytes.len(), 44 + 8);
        assert_eq!(&bytes[0..4], b"RIFF");
        assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), 36 + 8);
        assert_eq!(&bytes[8..16], b"WAVEfmt ");
        assert_eq!(u32::from_le_bytes(bytes[16..20].try_into().unwrap()), 16);
        assert_eq!(u16::from_le_bytes(bytes[20..22].try_into().unwrap()), 1);
        assert_eq!(u16::from_le_bytes(bytes[22..24].try_into().unwrap()), 2);
        assert_eq!(
            u32::from_le_bytes(bytes[24..28].try_into().unwrap()),
            48_000
        );
        assert_eq!(
            u32::from_le_bytes(bytes[28..32].try_into().unwrap()),
            192_000
        );
        assert_eq!(u16::from_le_bytes(bytes[32..34].try_into().unwrap()), 4);
        assert_eq!(u16::from_le_bytes(bytes[34..36].try_into().unwrap()), 16);
        assert_eq!(&bytes[36..40], b"data");
        assert_eq!(u32::from_le_bytes(bytes[40..44].try_into().unwrap()), 8);
        assert_eq!(&bytes[44..], &[1, 0, 0xFE, 0xFF, 3, 0, 0xFC, 0xFF]);
    }

    #[test]
    fn renders_the_requested_length() {
        // A ROM that loops forever (JR -2 at the entry point) still produces 48 kHz audio.
        let mut rom = vec![0u8; 0x8000];
        rom[0x100] = 0x18;
        rom[0x101] = 0xFE;
        let mut core = Core::new(
            backspin_core::Rom::from_bytes(rom).expect("a 32 KiB ROM-only image parses"),
            backspin_core::Options::default(),
        );
        let samples = render_audio(&mut core, 0.5);
        let frames = samples.len() / 2;
        // The APU hands finished samples over at each frame end and at least every ~94
        // samples (2,048 M-cycles) in between; the rest of 0.5 s is still pending.
        assert!((23_890..=24_010).contains(&frames), "{frames} frames");
    }
}
