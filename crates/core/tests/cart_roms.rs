//! ax6 `rtc3test-*` from the shared suite, as a report for the mapper work (`#[ignore]`d; it
//! asserts nothing): `cargo test -p backspin-core --test cart_roms -- --ignored --nocapture`.
//! It decodes the text the ROM wrote to its background map and prints it (PASS/FAIL per
//! test, with the emulated time each line last changed). The harness judges these rows, and
//! the Mooneye `emulator-only/mbc*` ROMs, with every other manifest row (`rom_suites`).

use backspin_core::{Core, M_CYCLES_PER_SECOND, Options, Rom};

#[test]
#[ignore = "screen-judged; needs CPU and PPU; run with --ignored"]
fn rtc3test_runs() {
    let root = match backspin_harness::locate_test_roms() {
        Ok(root) => root,
        Err(reason) => return backspin_test_support::skip_or_fail(reason),
    };
    let rows = backspin_harness::load_manifest(&root.join("manifest.tsv")).expect("manifest");
    // RTC3TEST_EXTRA_SECONDS runs longer than the manifest, to see slow results finish.
    let extra: f64 = std::env::var("RTC3TEST_EXTRA_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    for row in rows
        .iter()
        .filter(|row| row.rom.starts_with("ax6/rtc3test"))
    {
        let (rom, seconds) = (&row.rom, row.seconds + extra);
        let bytes = std::fs::read(root.join(rom)).expect("manifest ROM readable");
        let mut core = Core::new(
            Rom::from_bytes(bytes).expect("valid ROM"),
            Options::default(),
        );
        let budget = (seconds * 10.0) as u64 * M_CYCLES_PER_SECOND / 10;
        // Each screen row with the emulated time it last changed: shows how long tests take.
        let mut rows: Vec<(String, u64)> = vec![(String::new(), 0); 18];
        while core.m_cycles() < budget {
            core.run_frame();
            for (row, text) in rows.iter_mut().zip(rtc3test_screen(&core)) {
                if row.0 != text {
                    *row = (text, core.m_cycles());
                }
            }
        }
        let rtc = core
            .rom()
            .rtc_registers(&core.state().hw.mbc, core.m_cycles());
        println!("ran   {rom} for {seconds} s: clock {rtc:?}");
        for (text, at) in rows {
            let at = at as f64 / M_CYCLES_PER_SECOND as f64;
            println!("      |{text}| {at:5.2} s");
        }
    }
}

/// The text rtc3test printed, decoded from the background map at $9C00 with its charmap
/// (digits, A-Z, a-z, '.', ' ' as tiles $00-$3F; bits 6-7 are the colour: green = pass,
/// red = fail, shown here as a trailing '+' or '!'; other tiles print as blanks).
fn rtc3test_screen(core: &Core) -> Vec<String> {
    const CHARS: &[u8; 64] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz. ";
    let vram = &core.state().hw.vram;
    (0..18)
        .map(|row| {
            let mut line = String::new();
            let mut colour = ' ';
            for col in 0..20 {
                let tile = vram[0x1C00 + row * 32 + col];
                line.push(match tile {
                    0x00..=0xBF => {
                        match tile & 0xC0 {
                            0x40 => colour = '+',
                            0x80 => colour = '!',
                            _ => {}
                        }
                        char::from(CHARS[usize::from(tile & 0x3F)])
                    }
                    0xC0 => '>',
                    0xC1 => '*',
                    0xC2 => ':',
                    0xC3 => '/',
                    0xC4 => '-',
                    _ => ' ',
                });
            }
            line.push(colour);
            line
        })
        .collect()
}
