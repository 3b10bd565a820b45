//! Malformed sources fail with the right `file:line: message`.

use backspin_asm::{AsmError, assemble_file, assemble_str};
use std::path::PathBuf;

fn error_of(source: &str) -> AsmError {
    match assemble_str(source, "bad.asm") {
        Ok(_) => panic!("assembled without error:\n{source}"),
        Err(e) => e,
    }
}

fn check(source: &str, line: u32, needle: &str) {
    let e = error_of(source);
    let shown = e.to_string();
    assert_eq!((e.file.as_str(), e.line), ("bad.asm", line), "{shown}");
    assert!(shown.starts_with(&format!("bad.asm:{line}: ")), "{shown}");
    assert!(
        shown.contains(needle),
        "`{shown}` should mention `{needle}`"
    );
}

const START: &str =
    "SECTION \"entry\", ROM0[$100]\n    nop\n    jp main\nSECTION \"main\", ROM0[$150]\nmain:\n";

#[test]
fn unknown_instruction() {
    check(
        &format!("{START}    ld a, 1\n    frob a\n"),
        7,
        "unknown instruction `frob`",
    );
}

#[test]
fn invalid_operands() {
    check(
        &format!("{START}    ld bc, a\n"),
        6,
        "invalid operands for `ld`",
    );
    check(&format!("{START}    ld [hl], [hl]\n"), 6, "halt");
    check(
        &format!("{START}    push sp\n"),
        6,
        "invalid operands for `push`",
    );
}

#[test]
fn undefined_symbol_is_reported_in_the_second_pass() {
    check(
        &format!("{START}    call nowhere\n    ret\n"),
        6,
        "undefined symbol `nowhere`",
    );
}

#[test]
fn values_out_of_range() {
    check(
        &format!("{START}    ld a, 256\n"),
        6,
        "does not fit in 8 bits",
    );
    check(
        &format!("{START}    ds 10\n.far:\n    ds 120\n    jr .far\n    jr main\n"),
        10,
        "range",
    );
    check(&format!("{START}    rst $39\n"), 6, "rst");
    check(&format!("{START}    bit 8, a\n"), 6, "bit number 8");
}

#[test]
fn syntax_errors() {
    check(&format!("{START}    ld a, (1 + 2\n"), 6, "unbalanced");
    check(&format!("{START}    ld a, 1 + (2\n"), 6, "unbalanced");
    check(&format!("{START}    ld a, HIGH(1\n"), 6, "unbalanced");
    check(&format!("{START}    ld a, [hl\n"), 6, "unbalanced");
    check(&format!("{START}    db \"open\n"), 6, "unterminated string");
    check(&format!("{START}    ld a, 12abc\n"), 6, "bad number");
    check(
        &format!("{START}    ld a, 1 +\n"),
        6,
        "expression ends too early",
    );
}

#[test]
fn symbols_and_sections() {
    check(&format!("{START}main:\n"), 6, "already defined");
    check("    nop\n", 1, "before the first `SECTION`");
    check(
        &format!("{START}.loop\n.loop:\n"),
        7,
        "`main.loop` is already defined",
    );
    check("SECTION \"x\", ROM0[$4000]\n", 1, "outside ROM0");
    check("SECTION \"v\", WRAM0\nv: db 1\n", 2, "is RAM");
    check(
        &format!("{START}    nop\n    nop\nSECTION \"over\", ROM0[$151]\n    nop\n"),
        9,
        "overlaps bytes already placed by bad.asm:7",
    );
    check(
        "SECTION \"h\", ROM0[$100]\n    nop\n    nop\n    nop\n    nop\n    nop\n",
        6,
        "header",
    );
    check("X EQU Y + 1\n", 1, "undefined symbol `Y`");
    check("DEF hl EQU 3\n", 1, "register name");
}

#[test]
fn errors_inside_included_files_name_that_file() {
    let dir = std::env::temp_dir().join(format!("backspin-asm-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let main = dir.join("main.asm");
    let inc = dir.join("lib.inc");
    std::fs::write(
        &main,
        format!("{START}    call helper\n    INCLUDE \"lib.inc\"\n"),
    )
    .unwrap();
    std::fs::write(&inc, "helper:\n    ld a, 1\n    ld a, nope\n    ret\n").unwrap();
    let e = assemble_file(&main).unwrap_err();
    assert_eq!(PathBuf::from(&e.file), inc, "{e}");
    assert_eq!(e.line, 3, "{e}");
    std::fs::write(&main, format!("{START}    INCLUDE \"missing.inc\"\n")).unwrap();
    let e = assemble_file(&main).unwrap_err();
    assert_eq!((PathBuf::from(&e.file), e.line), (main.clone(), 6), "{e}");
    assert!(e.to_string().contains("not found"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
