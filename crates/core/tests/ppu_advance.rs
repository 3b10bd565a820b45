//! `PpuState::advance(n)` must be exactly `n` calls of `tick` whenever
//! `n <= quiet_m_cycles()`: same state bytes, same frame, same IF; and those ticks must
//! neither request an interrupt nor complete a frame. Checked on a synthetic scene with
//! background, window, objects and STAT sources, with register writes (some in mode 3)
//! sprinkled in. The seed is printed.

use backspin_core::state::PpuState;
use backspin_core::testing::VideoMemory;
use backspin_core::testing::io;
use backspin_test_support::SplitMix64;

fn scene(rng: &mut SplitMix64) -> (Box<[u8; 0x2000]>, Box<[u8; 160]>) {
    let mut vram = Box::new([0u8; 0x2000]);
    for byte in vram.iter_mut() {
        *byte = rng.next_u64() as u8;
    }
    let mut oam = Box::new([0u8; 160]);
    for entry in oam.chunks_exact_mut(4) {
        entry[0] = rng.below(170) as u8;
        entry[1] = rng.below(176) as u8;
        entry[2] = rng.next_u64() as u8;
        entry[3] = rng.next_u64() as u8;
    }
    (vram, oam)
}

fn write_random_register(ppu: &mut PpuState, rng: &mut SplitMix64, interrupt_flag: &mut u8) {
    let (reg, value) = match rng.below(9) {
        0 => (io::LCDC, 0x80 | rng.next_u64() as u8),
        1 => (io::STAT, rng.next_u64() as u8),
        2 => (io::SCY, rng.next_u64() as u8),
        3 => (io::SCX, rng.next_u64() as u8),
        4 => (io::LYC, rng.below(154) as u8),
        5 => (io::BGP, rng.next_u64() as u8),
        6 => (io::OBP0, rng.next_u64() as u8),
        7 => (io::WY, rng.below(150) as u8),
        _ => (io::WX, rng.below(170) as u8),
    };
    ppu.write_register(reg, value, interrupt_flag);
}

#[test]
fn advance_equals_ticking() {
    check_advance_equals_ticking(0x5EED_0003, 0x78, None, 200_000);
}

/// Without the HBlank and OAM sources the quiet spans cross mode 3 and whole lines, VBlank
/// included: LYC (the only source left, sometimes enabled) still ends them.
#[test]
fn advance_equals_ticking_over_lines() {
    check_advance_equals_ticking(0x5EED_0004, 0x00, Some(0x40), 20_000);
}

/// Random quiet spans from a scene with STAT = `stat`, against ticking, with random register
/// writes; with `stat_mask`, STAT writes keep only those source bits.
fn check_advance_equals_ticking(seed: u64, stat: u8, stat_mask: Option<u8>, rounds: u32) {
    println!("seed {seed:#x}");
    let mut rng = SplitMix64::new(seed);
    let (vram, oam) = scene(&mut rng);
    let mut ppu = PpuState::post_boot();
    let mut interrupt_flag = 0u8;
    let mut frame = Box::new([0u8; 160 * 144]);
    ppu.write_register(io::LCDC, 0xF3, &mut interrupt_flag); // window, objects, BG on
    ppu.write_register(io::STAT, stat, &mut interrupt_flag);
    let mut skipped = 0u64;
    for _ in 0..rounds {
        if rng.below(50) == 0 {
            write_random_register(&mut ppu, &mut rng, &mut interrupt_flag);
            if let Some(mask) = stat_mask {
                let sources = ppu.read_register(io::STAT) & mask;
                ppu.write_register(io::STAT, sources, &mut interrupt_flag);
            }
        }
        let quiet = ppu.quiet_m_cycles();
        if quiet == 0 {
            ppu.tick(
                VideoMemory::dmg(&vram, &oam),
                &mut interrupt_flag,
                &mut frame,
                &mut [0; 160 * 144],
            );
            continue;
        }
        let n = 1 + rng.below(u64::from(quiet)) as u32;
        let mut ticked = ppu;
        let mut ticked_frame = frame.clone();
        let mut ticked_if = 0u8;
        for _ in 0..n {
            let done = ticked.tick(
                VideoMemory::dmg(&vram, &oam),
                &mut ticked_if,
                &mut ticked_frame,
                &mut [0; 160 * 144],
            );
            assert!(!done, "a frame completed inside a quiet span of {quiet}");
        }
        assert_eq!(ticked_if, 0, "an interrupt inside a quiet span of {quiet}");
        let mut advanced_if = 0u8;
        ppu.advance(
            n,
            VideoMemory::dmg(&vram, &oam),
            &mut advanced_if,
            &mut frame,
            &mut [0; 160 * 144],
        );
        assert_eq!(advanced_if, 0);
        assert!(ppu == ticked, "advance({n}) differs from {n} ticks");
        assert!(
            frame[..] == ticked_frame[..],
            "frame differs after advance({n})"
        );
        skipped += u64::from(n);
    }
    assert!(skipped > 100_000, "quiet spans too rare to test: {skipped}");
}

/// Rendering registers written in mode 3 are deferred to the next tick, which applies them
/// at their dot; a quiet span may start with that tick (`advance` applies the write first).
/// As in a raster game's LYC handler: LYC the only STAT source (HBlank sometimes too),
/// writes to SCY, SCX, LCDC and the palettes landing anywhere in mode 3.
#[test]
fn advance_applies_mode3_writes_first() {
    let seed = 0x5EED_0005_u64;
    println!("seed {seed:#x}");
    let mut rng = SplitMix64::new(seed);
    let (vram, oam) = scene(&mut rng);
    let mut ppu = PpuState::post_boot();
    let mut interrupt_flag = 0u8;
    let mut frame = Box::new([0u8; 160 * 144]);
    ppu.write_register(io::LCDC, 0xF3, &mut interrupt_flag);
    ppu.write_register(io::STAT, 0x40, &mut interrupt_flag);
    let tick = |ppu: &mut PpuState, frame: &mut [u8; 160 * 144], interrupt_flag: &mut u8| {
        ppu.tick(
            VideoMemory::dmg(&vram, &oam),
            interrupt_flag,
            frame,
            &mut [0; 160 * 144],
        )
    };
    let mut spans_after_writes = 0u32;
    for _ in 0..6_000 {
        // Into mode 3, at a random dot of it.
        while ppu.read_register(io::STAT) & 3 != 3 {
            tick(&mut ppu, &mut frame, &mut interrupt_flag);
        }
        for _ in 0..rng.below(45) {
            tick(&mut ppu, &mut frame, &mut interrupt_flag);
        }
        if rng.below(8) == 0 {
            let sources = [0x40, 0x48, 0x00][rng.below(3) as usize];
            ppu.write_register(io::STAT, sources, &mut interrupt_flag);
            ppu.write_register(io::LYC, rng.below(154) as u8, &mut interrupt_flag);
        }
        let (reg, value) = match rng.below(8) {
            0 | 1 => (io::SCY, rng.next_u64() as u8),
            2 => (io::SCX, rng.next_u64() as u8),
            3 => (io::LCDC, 0x80 | rng.next_u64() as u8),
            4 => (io::BGP, rng.next_u64() as u8),
            5 => (io::OBP0, rng.next_u64() as u8),
            6 => (io::WY, rng.below(150) as u8),
            _ => (io::WX, rng.below(170) as u8),
        };
        ppu.write_register(reg, value, &mut interrupt_flag);
        let deferred = ppu.deferred_valid != 0;
        let quiet = ppu.quiet_m_cycles();
        if quiet == 0 {
            tick(&mut ppu, &mut frame, &mut interrupt_flag);
            continue;
        }
        spans_after_writes += u32::from(deferred);
        let n = 1 + rng.below(u64::from(quiet)) as u32;
        let mut ticked = ppu;
        let mut ticked_frame = frame.clone();
        let mut ticked_if = 0u8;
        for _ in 0..n {
            let done = tick(&mut ticked, &mut ticked_frame, &mut ticked_if);
            assert!(!done, "a frame completed inside a quiet span of {quiet}");
        }
        assert_eq!(ticked_if, 0, "an interrupt inside a quiet span of {quiet}");
        let mut advanced_if = 0u8;
        ppu.advance(
            n,
            VideoMemory::dmg(&vram, &oam),
            &mut advanced_if,
            &mut frame,
            &mut [0; 160 * 144],
        );
        assert_eq!(advanced_if, 0);
        assert!(
            ppu == ticked,
            "advance({n}) after FF{reg:02X} differs from {n} ticks"
        );
        assert!(
            frame[..] == ticked_frame[..],
            "frame differs after advance({n})"
        );
    }
    assert!(
        spans_after_writes > 2_000,
        "too few quiet spans start with a deferred write: {spans_after_writes}"
    );
}

#[test]
fn lcd_off_reports_a_frame_every_17556_m_cycles() {
    let vram = Box::new([0u8; 0x2000]);
    let oam = Box::new([0u8; 160]);
    let mut frame = Box::new([0u8; 160 * 144]);
    let mut interrupt_flag = 0u8;
    let mut ppu = PpuState::post_boot();
    ppu.write_register(io::LCDC, 0x00, &mut interrupt_flag);
    assert_eq!(ppu.read_register(io::LY), 0);
    assert_eq!(ppu.read_register(io::STAT) & 3, 0);
    let mut frames = Vec::new();
    for m_cycle in 1..=3 * 17_556u32 {
        if ppu.tick(
            VideoMemory::dmg(&vram, &oam),
            &mut interrupt_flag,
            &mut frame,
            &mut [0; 160 * 144],
        ) {
            frames.push(m_cycle);
        }
    }
    assert_eq!(frames, [17_556, 2 * 17_556, 3 * 17_556]);
}

#[test]
fn frame_timing_with_lcd_on() {
    let vram = Box::new([0u8; 0x2000]);
    let oam = Box::new([0u8; 160]);
    let mut frame = Box::new([0u8; 160 * 144]);
    let mut interrupt_flag = 0u8;
    let mut ppu = PpuState::post_boot();
    let mut completions = Vec::new();
    for m_cycle in 0..4 * 17_556u32 {
        if ppu.tick(
            VideoMemory::dmg(&vram, &oam),
            &mut interrupt_flag,
            &mut frame,
            &mut [0; 160 * 144],
        ) {
            completions.push(m_cycle);
            assert_eq!(ppu.read_register(io::LY), 144);
            assert_eq!(ppu.read_register(io::STAT) & 3, 1);
            assert_ne!(interrupt_flag & io::INT_VBLANK, 0);
            interrupt_flag = 0;
        }
    }
    assert_eq!(completions.len(), 4);
    for pair in completions.windows(2) {
        assert_eq!(
            pair[1] - pair[0],
            17_556,
            "a frame is 154 lines of 456 dots"
        );
    }
}

#[test]
fn background_pixels_follow_bgp() {
    // Tile 0 row data 0xFF/0x00 everywhere: colour 1 on every pixel, shade = BGP bits 2-3.
    let mut vram = Box::new([0u8; 0x2000]);
    for row in 0..8 {
        vram[row * 2] = 0xFF;
    }
    let oam = Box::new([0u8; 160]);
    let mut frame = Box::new([9u8; 160 * 144]);
    let mut interrupt_flag = 0u8;
    let mut ppu = PpuState::post_boot();
    ppu.write_register(io::BGP, 0b0000_1000, &mut interrupt_flag); // colour 1 -> shade 2
    for _ in 0..2 * 17_556 {
        ppu.tick(
            VideoMemory::dmg(&vram, &oam),
            &mut interrupt_flag,
            &mut frame,
            &mut [0; 160 * 144],
        );
    }
    assert!(frame.iter().all(|&shade| shade == 2));
}

/// Any bit pattern is a valid `PpuState` (`docs/style.md`): random states tick, advance, read and
/// write registers without panicking.
#[test]
fn random_states_never_panic() {
    let seed = 0xBAD5_7A7E_u64;
    println!("seed {seed:#x}");
    let mut rng = SplitMix64::new(seed);
    let (vram, oam) = scene(&mut rng);
    let mut frame = Box::new([0u8; 160 * 144]);
    for round in 0..600 {
        let mut bytes = vec![0u8; std::mem::size_of::<PpuState>()];
        for byte in bytes.iter_mut() {
            *byte = rng.next_u64() as u8;
        }
        let mut ppu: PpuState = bytemuck::pod_read_unaligned(&bytes);
        if round % 2 == 0 {
            // Keep the LCD on for half of them, where the stepping happens.
            ppu.write_register(io::LCDC, 0x80 | bytes[0], &mut 0);
        }
        let mut interrupt_flag = 0u8;
        for _ in 0..20_000 {
            if rng.below(40) == 0 {
                write_random_register(&mut ppu, &mut rng, &mut interrupt_flag);
            }
            let _ = ppu.read_register(0x40 + rng.below(12) as u8);
            let _ = ppu.interrupts_in_next_dot(VideoMemory::dmg(&vram, &oam));
            let quiet = ppu.quiet_m_cycles();
            if quiet > 1 {
                ppu.advance(
                    quiet.min(50),
                    VideoMemory::dmg(&vram, &oam),
                    &mut interrupt_flag,
                    &mut frame,
                    &mut [0; 160 * 144],
                );
            } else {
                ppu.tick(
                    VideoMemory::dmg(&vram, &oam),
                    &mut interrupt_flag,
                    &mut frame,
                    &mut [0; 160 * 144],
                );
            }
        }
        let mut oam_copy = *oam;
        ppu.oam_bug_write(&mut oam_copy);
        ppu.oam_bug_read(&mut oam_copy);
    }
}
