//! Round trips of the record format and the token stream.

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

/// States `next` makes from a state of zeros, one a frame, coded while `enc` learns its
/// code: a keyframe, `frames - 1` deltas, and a keyframe of the last state, committed so
/// that the learned code governs what follows. Returns the states, the base the deltas
/// left, and that last keyframe's record.
fn learn_code(
    enc: &mut Encoder,
    len: usize,
    frames: usize,
    next: &mut impl FnMut(&mut Vec<u8>),
) -> (Vec<Vec<u8>>, Vec<u8>, Vec<u8>) {
    let mut states = vec![vec![0u8; len]];
    let mut base = states[0].clone();
    enc.encode_keyframe(&states[0]);
    enc.commit_keyframe();
    for k in 1..frames {
        let mut s = states[k - 1].clone();
        next(&mut s);
        enc.encode_delta(&mut base, &s);
        states.push(s);
    }
    let key = enc.encode_keyframe(&states[frames - 1]).to_vec();
    enc.commit_keyframe();
    (states, base, key)
}

/// `frames` more states `next` makes after the last of `states`, appended to them and coded
/// as deltas against `base`: their records.
fn record_deltas(
    enc: &mut Encoder,
    states: &mut Vec<Vec<u8>>,
    base: &mut [u8],
    frames: usize,
    next: &mut impl FnMut(&mut Vec<u8>),
) -> Vec<Vec<u8>> {
    (0..frames)
        .map(|_| {
            let mut s = states.last().expect("a first state").clone();
            next(&mut s);
            let record = enc.encode_delta(base, &s).to_vec();
            states.push(s);
            record
        })
        .collect()
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
/// record's `Landing`).
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
    let (mut states, mut base, key) = learn_code(&mut enc, len, 200, &mut next);
    assert_eq!(enc.mirror.range(), Some((spec.target, shadow, spec.len)));
    assert_eq!(enc.mirror.codes_from_new(), same_frame);
    let records = record_deltas(&mut enc, &mut states, &mut base, 20, &mut next);
    let mut plain = 0;
    for k in 200..220 {
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
    dec.apply(&records[4], &mut x, Apply::Landing).unwrap();
    assert!(x == states[204], "back to 204");
}

/// `record`, a deflated keyframe, rewritten as keyframes were before deflate: its packed
/// parts as LZ4 blocks, without `FLAG_DEFLATE`.
fn as_lz4_keyframe(record: &[u8]) -> Vec<u8> {
    let mut scratch = vec![0; MAX_META];
    let (meta, _) = keyframe_meta(record, &mut scratch).unwrap();
    let meta = meta.to_vec();
    let mut payload = keyframe_payload(record).unwrap();
    assert_eq!(record[0] & FLAG_LZ4, FLAG_LZ4, "a packed payload");
    let raw_len = get_varint(&mut payload).unwrap() as usize;
    let mut tokens = vec![0; raw_len];
    unpack(record[0], payload, &mut tokens).unwrap();
    let mut out = vec![FLAG_KEYFRAME | FLAG_LZ4, 0, 0];
    let packed_meta = lz4_flex::block::compress(&meta);
    put_varint(&mut out, meta.len() as u64);
    put_varint(&mut out, packed_meta.len() as u64);
    out.extend_from_slice(&packed_meta);
    put_varint(&mut out, raw_len as u64);
    out.extend_from_slice(&lz4_flex::block::compress(&tokens));
    let sum = checksum(&out[HEADER_LEN..]);
    out[1..3].copy_from_slice(&sum.to_le_bytes());
    out
}

#[test]
fn keyframes_are_deflated_and_lz4_keyframes_still_decode() {
    let mut rng = SplitMix64::new(34);
    let a: Vec<u8> = (0..20_000)
        .map(|i| if i % 3 == 0 { rng.range(0, 4) as u8 } else { 0 })
        .collect();
    let mut b = a.clone();
    for i in (0..20_000).step_by(97) {
        b[i] = b[i].wrapping_add(1);
    }
    let mut enc = Encoder::new(a.len());
    // A group of deltas first, so the keyframe carries learned tables.
    enc.encode_keyframe(&a);
    enc.commit_keyframe();
    let mut base = a.clone();
    for _ in 0..40 {
        enc.encode_delta(&mut base, &b);
        enc.encode_delta(&mut base, &a);
    }
    let key = enc.encode_keyframe(&a).to_vec();
    enc.commit_keyframe();
    assert_eq!(key[0] & FLAG_DEFLATE, FLAG_DEFLATE);
    let record = enc.encode_delta(&mut base, &b).to_vec();
    let old = as_lz4_keyframe(&key);
    assert!(
        old.len() > key.len(),
        "deflate {} B, LZ4 {} B",
        key.len(),
        old.len()
    );
    for key in [&key, &old] {
        let mut dec = Decoder::new(a.len());
        let mut x = vec![0; a.len()];
        dec.apply(key, &mut x, Apply::Forward).unwrap();
        assert_eq!(x, a, "the keyframe's state");
        dec.load_meta(0, key).unwrap();
        dec.apply(&record, &mut x, Apply::Forward).unwrap();
        assert_eq!(x, b, "a delta with the keyframe's models");
        dec.apply(&record, &mut x, Apply::Backward).unwrap();
        assert_eq!(x, a);
    }
}

#[test]
fn a_damaged_deflate_stream_is_an_error() {
    let a: Vec<u8> = (0..5_000u32).map(|i| (i % 7) as u8).collect();
    let mut enc = Encoder::new(a.len());
    let key = enc.encode_keyframe(&a).to_vec();
    assert_eq!(key[0] & (FLAG_DEFLATE | FLAG_LZ4), FLAG_DEFLATE | FLAG_LZ4);
    let mut dec = Decoder::new(a.len());
    for at in [HEADER_LEN + 4, key.len() / 2, key.len() - 1] {
        for flip in [0x01, 0x40, 0xFF] {
            let mut bad = key.clone();
            bad[at] ^= flip;
            // A damage the checksum does not see.
            let sum = checksum(&bad[HEADER_LEN..]);
            bad[1..3].copy_from_slice(&sum.to_le_bytes());
            let mut x = vec![0; a.len()];
            if dec.apply(&bad, &mut x, Apply::Forward).is_ok() {
                // Deflate has no check of its own: a flip may decode to other bytes of the
                // right length, never out of bounds.
                assert_eq!(x.len(), a.len());
            }
            let _ = dec.load_meta(1, &bad);
        }
    }
}

/// A delta told which tracked pages were written is the delta of the whole state: runs of
/// unwritten pages are skipped, the written ones (and everything untracked) compared, and
/// VRAM's bytes in the untracked page it begins in only when that page was noted.
#[test]
fn a_delta_of_written_pages_is_the_whole_delta() {
    let len = size_of::<backspin_core::State>();
    let first_tracked = TRACKED_FROM.div_ceil(PAGE_BYTES);
    let pages = len.div_ceil(PAGE_BYTES);
    let mut rng = SplitMix64::new(34);
    let mut state = vec![0u8; len];
    rng.fill(&mut state);
    let mut whole = Encoder::new(len);
    let mut told = Encoder::new(len);
    let (mut whole_base, mut told_base) = (state.clone(), state.clone());
    for round in 0..40 {
        let mut written = 0u128;
        for _ in 0..rng.range(0, 12) {
            let page = rng.range(first_tracked as u64, pages as u64 - 1) as usize;
            written |= 1 << page;
            let at = page * PAGE_BYTES + rng.below(PAGE_BYTES as u64) as usize;
            state[at.min(len - 1)] ^= 0x3C;
        }
        for _ in 0..rng.range(0, 30) {
            let at = rng.below(TRACKED_FROM as u64) as usize;
            state[at] = state[at].wrapping_add(1);
            // VRAM's bytes in the untracked page it begins in change only with its note.
            if at >= VRAM_FROM {
                written |= 1 << VRAM_FIRST_PAGE;
            }
        }
        // The last work RAM byte, in the block VRAM begins in: never skipped.
        if round % 3 == 0 {
            state[VRAM_FROM - 1] ^= 0x81;
        }
        // Pages said written but left as they were cost only a look.
        written |= 1 << rng.range(first_tracked as u64, pages as u64 - 1);
        let expected = whole.encode_delta(&mut whole_base, &state).to_vec();
        let got = told.encode_delta_written(&mut told_base, &state, WrittenPages(written));
        assert_eq!(got, expected, "round {round}");
        assert_eq!(told_base, state, "round {round}");
    }
}

/// Huffman-coded deltas with hot bytes (some of them zero, in runs) and literals of every
/// length anywhere in the state: decoded straight into the state (`decode_apply`), they
/// move it both ways exactly as decoding into the token buffer and applying it does, with
/// hot bytes decoded two at a time or one at a time.
#[test]
fn fused_decoding_patches_as_the_token_buffer_does() {
    let len = size_of::<backspin_core::State>();
    let mut enc = Encoder::new(len);
    let mut rng = SplitMix64::new(0xF05E);
    let hot: Vec<usize> = (0..60).map(|k| 40 + k * 997 % (len - 80)).collect();
    let mut next = move |s: &mut Vec<u8>| {
        for (k, &p) in hot.iter().enumerate() {
            let seed = rng.next_u64();
            // Most hot bytes change most frames; a few rarely, so zeros come in runs.
            if seed % 16 < if k < 30 { 14 } else { 3 } {
                s[p] = s[p].wrapping_add(1 + (seed >> 8) as u8 % 4);
            }
        }
        for _ in 0..(rng.next_u64() % 12) {
            let seed = rng.next_u64();
            let at = (seed >> 24) as usize % (len - 40);
            for b in &mut s[at..at + (seed % 33) as usize] {
                // Small steps, as counters and coordinates make: a code shorter than 8 bits.
                *b = b.wrapping_add(if seed & 1 == 0 { 1 } else { 0xFF });
            }
        }
    };
    let (mut states, mut base, key) = learn_code(&mut enc, len, 300, &mut next);
    assert!(enc.hot_count() > 0, "hot positions learned");
    let records = record_deltas(&mut enc, &mut states, &mut base, 100, &mut next);
    let huffman = records.iter().filter(|r| r[0] & FLAG_HUFFMAN != 0).count();
    assert!(huffman > 80, "{huffman} Huffman-coded deltas");
    for (fused, pairs) in [(true, true), (true, false), (false, false)] {
        let mut dec = Decoder::new(len);
        dec.set_fused_apply(fused);
        dec.set_pairs(pairs);
        dec.load_meta(299, &key).unwrap();
        let mut x = states[299].clone();
        for (j, r) in records.iter().enumerate() {
            dec.apply(r, &mut x, Apply::Forward).unwrap();
            assert!(
                x == states[300 + j],
                "fused {fused}, pairs {pairs}: forward to {}",
                300 + j
            );
        }
        for (j, r) in records.iter().enumerate().skip(1).rev() {
            dec.apply(r, &mut x, Apply::Backward).unwrap();
            // A walk back ends by rebuilding the mirror from the landing frame's record.
            let mut landed = x.clone();
            dec.apply(&records[j - 1], &mut landed, Apply::Landing)
                .unwrap();
            assert!(
                landed == states[299 + j],
                "fused {fused}, pairs {pairs}: back to {}",
                299 + j
            );
        }
    }
}

/// Blocks of the base known to be zeros are compared by reading the current state alone:
/// the records are the plain encoder's, with hot positions, counters and the OAM mirror
/// (which rewrite the base before the comparison) in blocks that are zeros in some frames
/// and not in others, and every block the map says is zeros is.
#[test]
fn deltas_against_known_zero_blocks_are_the_plain_deltas() {
    let len = size_of::<backspin_core::State>();
    let (oam, shadow) = (STATE_MIRROR.target, STATE_MIRROR.first_source + 0x300);
    let mut rng = SplitMix64::new(0x2E80);
    // The mapped part (the untracked part and VRAM bank 0) mostly zeros, as in games' work
    // RAM and VRAM.
    let mapped_end = ZERO_MAP_BLOCKS * BLOCK;
    let mut state = vec![0u8; len];
    rng.fill(&mut state[mapped_end..]);
    let hot: Vec<usize> = (0..40)
        .map(|_| rng.below(mapped_end as u64) as usize)
        .collect();
    let mut plain = Encoder::new(len);
    let mut mapped = Encoder::new(len);
    let (mut plain_base, mut mapped_base) = (state.clone(), state.clone());
    plain.encode_keyframe(&state);
    plain.commit_keyframe();
    mapped.encode_keyframe(&state);
    mapped.commit_keyframe();
    let mut zeros = mapped.zero_blocks(&mapped_base);
    let mut most_known = 0;
    for frame in 0..1500 {
        // OAM gets the shadow page of the frame before (a DMA), then the shadow changes.
        state.copy_within(shadow..shadow + 160, oam);
        for _ in 0..rng.range(0, 4) {
            let at = shadow + rng.below(160) as usize;
            state[at] = if rng.below(3) == 0 {
                0
            } else {
                rng.next_u64() as u8
            };
        }
        // Hot positions: changing most frames, often back to zero.
        for &p in &hot {
            let r = rng.next_u64();
            if !r.is_multiple_of(4) {
                state[p] = if r & 16 == 0 { 0 } else { (r >> 8) as u8 };
            }
        }
        // Counters step steadily (so their expected steps are learned), and from the
        // third group on their blocks are cleared and stay zeros a while, some of them
        // across a keyframe (where the map is learned): coded against an expected step,
        // the base is rewritten there before it is compared.
        let cleared = frame >= 600 && (frame % 50 < 10 || (frame + 10) % 300 < 20);
        for f in STATE_COUNTERS {
            let field = &mut state[f.offset..f.offset + f.width];
            if cleared {
                let first = f.offset / BLOCK * BLOCK;
                let end = (f.offset + f.width).div_ceil(BLOCK) * BLOCK;
                state[first..end].fill(0);
            } else {
                let mut value = [0u8; 8];
                value[..f.width].copy_from_slice(field);
                let step = 3 + (f.offset as u64 % 5);
                let next = u64::from_le_bytes(value).wrapping_add(step).to_le_bytes();
                field.copy_from_slice(&next[..f.width]);
            }
        }
        // Whole blocks filled and cleared again; single bytes anywhere.
        if rng.below(6) == 0 {
            let at = rng.below(ZERO_MAP_BLOCKS as u64) as usize * BLOCK;
            let fill = if rng.below(2) == 0 {
                0
            } else {
                rng.next_u64() as u8
            };
            state[at..at + BLOCK].fill(fill);
        }
        for _ in 0..rng.range(0, 3) {
            let at = rng.below(len as u64) as usize;
            state[at] ^= 1 << rng.below(8);
        }
        let want = plain.encode_delta(&mut plain_base, &state).to_vec();
        let got =
            mapped.encode_delta_known(&mut mapped_base, &state, WrittenPages::ALL, &mut zeros);
        assert!(got == want, "frame {frame}: record");
        assert!(mapped_base == state, "frame {frame}: base synced");
        assert!(
            zeros.holds_for(&mapped_base, mapped.hot.positions()),
            "frame {frame}: a known block is not zeros"
        );
        most_known = most_known.max(zeros.known_count());
        if frame % 300 == 299 {
            plain.encode_keyframe(&state);
            plain.commit_keyframe();
            mapped.encode_keyframe(&state);
            mapped.commit_keyframe();
            zeros = mapped.zero_blocks(&mapped_base);
        }
    }
    assert!(mapped.hot_count() > 0, "hot positions learned");
    assert!(most_known > 100, "{most_known} blocks known zero");
}
