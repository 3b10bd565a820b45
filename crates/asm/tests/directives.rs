//! Sections, constants, variables, blocks, data directives and the header fix-up.

use backspin_asm::{assemble_snippet, assemble_str};

const ENTRY: &str = "SECTION \"entry\", ROM0[$100]\n    nop\n    jp Main\nSECTION \"main\", ROM0[$150]\nMain:\n    jr Main\n";

fn rom(source: &str) -> Vec<u8> {
    assemble_str(&format!("{ENTRY}{source}"), "test.asm").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn header_is_filled_in() {
    let rom = rom("    TITLE \"HELLO\"\n    CART_TYPE $03\n    RAM_SIZE 2\n");
    assert_eq!(rom.len(), 32 * 1024);
    assert_eq!(&rom[0x100..0x104], &[0x00, 0xC3, 0x50, 0x01]);
    assert_eq!(rom[0x104], 0xCE, "logo");
    assert_eq!(rom[0x133], 0x3E, "logo end");
    assert_eq!(&rom[0x134..0x13A], b"HELLO\0");
    assert_eq!((rom[0x147], rom[0x148], rom[0x149]), (0x03, 0x00, 0x02));
    let mut x = 0u8;
    for &b in &rom[0x134..=0x14C] {
        x = x.wrapping_sub(b).wrapping_sub(1);
    }
    assert_eq!(rom[0x14D], x, "header checksum");
    let sum = rom
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 0x14E && *i != 0x14F)
        .fold(0u16, |s, (_, &b)| s.wrapping_add(u16::from(b)));
    assert_eq!(
        u16::from_be_bytes([rom[0x14E], rom[0x14F]]),
        sum,
        "global checksum"
    );
}

#[test]
fn cgb_flag_fills_0143_and_shortens_the_title() {
    let rom = rom("    TITLE \"COLOUR\"\n    CGB_FLAG $C0\n");
    assert_eq!(&rom[0x134..0x13B], b"COLOUR\0");
    assert_eq!(rom[0x143], 0xC0);
    let long_title = format!("{ENTRY}    TITLE \"SIXTEEN CHARS 16\"\n    CGB_FLAG $80\n");
    let error = assemble_str(&long_title, "test.asm").expect_err("title overlaps the flag");
    assert!(error.to_string().contains("15 characters"), "{error}");
}

#[test]
fn banks_set_the_rom_size() {
    let rom =
        rom("SECTION \"b5\", ROMX[$4000], BANK[5]\n    db $55\nSECTION \"b1\", ROMX\n    db $11\n");
    assert_eq!(rom.len(), 128 * 1024, "banks 0-5 round up to 8");
    assert_eq!(rom[0x148], 2);
    assert_eq!(rom[5 * 0x4000], 0x55);
    assert_eq!(rom[0x4000], 0x11, "ROMX without BANK is bank 1");
    let bigger = self::rom("    ROM_SIZE 4\n");
    assert_eq!(bigger.len(), 512 * 1024);
}

#[test]
fn floating_sections_fill_gaps_and_labels_follow() {
    let rom = rom(concat!(
        "    call Helper\n",
        "SECTION \"far\", ROM0[$0200]\n",
        "    ds $100, $AA\n",
        "SECTION \"helper\", ROM0\n",
        "Helper:\n",
        "    ld a, LOW(Helper)\n",
        "    ret\n",
        "SECTION \"vars\", WRAM0\n",
        "wOne: ds 1\n",
        "wTwo: ds 2\n",
        "SECTION \"more vars\", WRAM0\n",
        "wThree: ds 1\n",
        "SECTION \"hram\", HRAM\n",
        "hVar: ds 1\n",
        "SECTION \"use\", ROM0[$3000]\n",
        "    ld a, [wThree]\n",
        "    ldh [hVar], a\n",
    ));
    // main: jr (2 bytes) + call (3) = $150..$155; Helper floats into the gap at $155.
    assert_eq!(&rom[0x152..0x155], &[0xCD, 0x55, 0x01]);
    assert_eq!(&rom[0x155..0x158], &[0x3E, 0x55, 0xC9]);
    assert_eq!(&rom[0x3000..0x3005], &[0xFA, 0x03, 0xC0, 0xE0, 0x80]);
}

#[test]
fn constants_variables_and_local_labels() {
    let source = concat!(
        "DEF SIZE EQU 4\n",
        "COUNT = 0\n",
        "Outer:\n",
        ".loop:\n",
        "    dec a\n",
        "    jr nz, .loop\n",
        "Inner:\n",
        ".loop:\n",
        "    jr .loop\n",
        "    jr Outer.loop\n",
        "REPT SIZE\n",
        "    db COUNT * 2\n",
        "DEF COUNT = COUNT + 1\n",
        "ENDR\n",
        "IF COUNT == SIZE\n",
        "    db $11\n",
        "ELSE\n",
        "    db $22\n",
        "ENDC\n",
        "IF 0\n",
        "  IF 1\n",
        "    db $33\n",
        "  ENDC\n",
        "ENDC\n",
        "    db @ - Outer, 'x', \"yz\", HIGH($ABCD), LOW(-1)\n",
        "    dw Inner, -2\n",
    );
    let got = assemble_snippet(source, 0x4000).unwrap_or_else(|e| panic!("{e}"));
    let want = [
        0x3D, 0x20, 0xFD, // Outer.loop
        0x18, 0xFE, // Inner.loop
        0x18, 0xF9, // back to Outer.loop at $4000 from $4007
        0, 2, 4, 6,    // REPT
        0x11, // IF
        12, b'x', b'y', b'z', 0xAB, 0xFF, // db
        0x03, 0x40, 0xFE, 0xFF, // dw
    ];
    assert_eq!(got, want);
}

#[test]
fn incbin_and_include_read_beside_the_source() {
    let dir = std::env::temp_dir().join(format!("backspin-asm-incbin-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/data.bin"), [1, 2, 3, 4, 5]).unwrap();
    std::fs::write(dir.join("sub/part.inc"), "    INCBIN \"data.bin\", 1, 3\n").unwrap();
    let main = dir.join("main.asm");
    std::fs::write(
        &main,
        format!("{ENTRY}SECTION \"d\", ROM0[$1000]\n    INCBIN \"sub/data.bin\"\n    INCLUDE \"sub/part.inc\"\n"),
    )
    .unwrap();
    let assembled =
        backspin_asm::assemble_file_with_symbols(&main).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(&assembled.rom[0x1000..0x1008], &[1, 2, 3, 4, 5, 2, 3, 4]);
    let names: Vec<String> = assembled
        .files
        .iter()
        .map(|f| f.strip_prefix(&dir).unwrap().display().to_string())
        .collect();
    assert_eq!(
        names,
        ["main.asm", "sub/part.inc", "sub/data.bin", "sub/data.bin"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn builtin_hardware_include() {
    let got = assemble_snippet(
        "INCLUDE \"hardware.inc\"\n    ldh a, [rLY]\n    ld [rLCDC], a\n",
        0,
    )
    .unwrap();
    assert_eq!(got, [0xF0, 0x44, 0xEA, 0x40, 0xFF]);
}

#[test]
fn asserts() {
    assert!(assemble_snippet("ASSERT 1 + 1 == 2\n", 0).is_ok());
    let e = assemble_snippet("    nop\n    ASSERT @ == 0, \"where am I\"\n", 0).unwrap_err();
    assert_eq!(e.to_string(), "<snippet>:2: assertion failed: where am I");
}

/// Random bytes and random token soup: errors, never panics (or hangs).
#[test]
fn random_sources_never_panic() {
    const PIECES: [&str; 40] = [
        "ld", "a", ",", "[", "]", "(", ")", "hl", "+", "-", "$FF", "%101", "SECTION", "\"x\"",
        "ROM0", "ROMX", "BANK", "REPT", "ENDR", "IF", "ELSE", "ENDC", "DEF", "EQU", "=", "db",
        "ds", "jr", "label:", ".local", "@", "<<", "64", "'c'", "\n", "\n", "HIGH", "INCBIN", "sp",
        "~",
    ];
    let seed: u64 = 0x0A55_E3B1;
    println!("seed {seed:#x}");
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..3000 {
        let len = next() % 60;
        let mut source = String::new();
        for _ in 0..len {
            if next() % 8 == 0 {
                source.push(char::from((next() % 96) as u8 + 32));
            } else {
                source.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
                source.push(' ');
            }
        }
        let _ = assemble_snippet(&source, (next() & 0xFFFF) as u16);
        let _ = assemble_str(&source, "fuzz.asm");
    }
}
