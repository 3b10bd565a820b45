//! What the assembler writes for a debugger: the `.sym` (labels only, banked) and the line
//! table mapping bytes to file and line, through an `INCLUDE`d file and a `REPT`.

use backspin_asm::{LineEntry, LineTable, assemble_file_with_symbols};

#[test]
fn labels_and_lines_cover_included_files() {
    let dir = std::env::temp_dir().join(format!("bs-asm-debug-info-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("main.asm"),
        "SPEED EQU 3\n\
         SECTION \"main\", ROM0[$150]\n\
         Main:\n\
         \x20   ld a, SPEED\n\
         INCLUDE \"part.inc\"\n\
         \x20   jr Main\n\
         SECTION \"far\", ROMX[$4000], BANK[2]\n\
         Far:\n\
         REPT 2\n\
         \x20   nop\n\
         ENDR\n",
    )
    .unwrap();
    std::fs::write(dir.join("part.inc"), "; a comment\nPart:\n    inc a\n").unwrap();
    let assembled = assemble_file_with_symbols(dir.join("main.asm")).unwrap();

    assert!(
        assembled.sym.contains("00:0150 Main\n"),
        "{}",
        assembled.sym
    );
    assert!(assembled.sym.contains("00:0152 Part\n"));
    assert!(assembled.sym.contains("02:4000 Far\n"));
    assert!(!assembled.sym.contains("SPEED"), "constants are not labels");

    let table = &assembled.lines;
    let file = |name: &str| table.files.iter().position(|f| f.ends_with(name)).unwrap();
    let (main, part) = (file("main.asm"), file("part.inc"));
    let entry = |bank, addr, len, file, line| LineEntry {
        bank,
        addr,
        len,
        file,
        line,
    };
    assert_eq!(
        table.entries,
        [
            entry(0, 0x150, 2, main, 4),
            entry(0, 0x152, 1, part, 3),
            entry(0, 0x153, 2, main, 6),
            entry(2, 0x4000, 1, main, 10),
            entry(2, 0x4001, 1, main, 10),
        ]
    );
    // Paths are absolute, as an editor names files.
    assert!(
        table
            .files
            .iter()
            .all(|f| std::path::Path::new(f).is_absolute())
    );
    assert_eq!(LineTable::parse(&table.to_text()).as_ref(), Ok(table));

    let rom = dir.join("game.gb");
    assembled.write_with_debug_info(&rom).unwrap();
    assert!(dir.join("game.sym").exists() && dir.join("game.lines").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
