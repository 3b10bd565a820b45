//! The PPU. PLACEHOLDER until the dot-accurate PPU lands: fixed mode lengths (80/172/204
//! dots), LY/LYC, the STAT interrupt as the rising edge of its sources, VBlank, and a
//! whole-line renderer at the start of HBlank. APPROX: no mode-3 length variation, no line-153
//! quirk, no mid-line register effects (Mooneye `ppu/*`, Mealybug decide the real thing).

use crate::io;
use bytemuck::{Pod, Zeroable};

const DOTS_PER_LINE: u16 = 456;
const MODE2_END: u16 = 80;
const MODE3_END: u16 = 80 + 172;
const LCD_OFF_FRAME_M_CYCLES: u32 = 17_556;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct PpuState {
    /// M-cycles since the LCD went off or since the last LCD-off frame.
    pub lcd_off_m_cycles: u32,
    /// Dot within the current line, 0..456.
    pub dot: u16,
    /// FF40 LCDC.
    pub lcdc: u8,
    /// FF41 STAT bits 3-6 (interrupt sources) as written.
    pub stat_enables: u8,
    /// FF42 SCY.
    pub scy: u8,
    /// FF43 SCX.
    pub scx: u8,
    /// FF44 LY.
    pub ly: u8,
    /// FF45 LYC.
    pub lyc: u8,
    /// FF47 BGP.
    pub bgp: u8,
    /// FF48 OBP0.
    pub obp0: u8,
    /// FF49 OBP1.
    pub obp1: u8,
    /// FF4A WY.
    pub wy: u8,
    /// FF4B WX.
    pub wx: u8,
    /// Current mode, 0..=3.
    pub mode: u8,
    /// The OR of the enabled STAT sources in the previous M-cycle (interrupts fire on its
    /// rising edge).
    pub stat_line: u8,
    /// The window's own line counter.
    pub window_line: u8,
    pub _pad: [u8; 4],
}

impl PpuState {
    /// The DMG boot ROM leaves the LCD on with BGP = 0xFC.
    pub fn post_boot() -> PpuState {
        PpuState {
            lcdc: 0x91,
            bgp: 0xFC,
            obp0: 0xFF,
            obp1: 0xFF,
            ly: 0,
            dot: 0,
            mode: 2,
            ..PpuState::default()
        }
    }

    fn lcd_on(&self) -> bool {
        self.lcdc & 0x80 != 0
    }

    /// One M-cycle (4 dots). Returns true when a frame completed.
    pub fn tick(
        &mut self,
        vram: &[u8; 0x2000],
        oam: &[u8; 160],
        interrupt_flag: &mut u8,
        frame: &mut [u8; 160 * 144],
    ) -> bool {
        if !self.lcd_on() {
            self.lcd_off_m_cycles += 1;
            if self.lcd_off_m_cycles >= LCD_OFF_FRAME_M_CYCLES {
                self.lcd_off_m_cycles = 0;
                return true;
            }
            return false;
        }
        let mut frame_done = false;
        self.dot += 4;
        if self.dot >= DOTS_PER_LINE {
            self.dot -= DOTS_PER_LINE;
            self.ly = if self.ly >= 153 { 0 } else { self.ly + 1 };
            if self.ly == 0 {
                self.window_line = 0;
            }
        }
        let mode = if self.ly >= 144 {
            1
        } else if self.dot < MODE2_END {
            2
        } else if self.dot < MODE3_END {
            3
        } else {
            0
        };
        if mode != self.mode {
            if mode == 0 {
                self.render_line(vram, oam, frame);
            }
            if mode == 1 {
                *interrupt_flag |= io::INT_VBLANK;
                frame_done = true;
            }
            self.mode = mode;
        }
        self.update_stat_line(interrupt_flag);
        frame_done
    }

    fn update_stat_line(&mut self, interrupt_flag: &mut u8) {
        let on = self.lcd_on();
        let lyc_match = on && self.ly == self.lyc;
        let line = (self.stat_enables & 0x40 != 0 && lyc_match)
            || (on && self.stat_enables & 0x08 != 0 && self.mode == 0)
            || (on && self.stat_enables & 0x10 != 0 && self.mode == 1)
            || (on && self.stat_enables & 0x20 != 0 && self.mode == 2);
        if line && self.stat_line == 0 {
            *interrupt_flag |= io::INT_STAT;
        }
        self.stat_line = u8::from(line);
    }

    pub fn read_register(&self, reg: u8) -> u8 {
        match reg {
            io::LCDC => self.lcdc,
            io::STAT => {
                let (mode, lyc) = if self.lcd_on() {
                    (self.mode & 3, u8::from(self.ly == self.lyc) << 2)
                } else {
                    (0, 0)
                };
                0x80 | self.stat_enables | lyc | mode
            }
            io::SCY => self.scy,
            io::SCX => self.scx,
            io::LY => self.ly,
            io::LYC => self.lyc,
            io::BGP => self.bgp,
            io::OBP0 => self.obp0,
            io::OBP1 => self.obp1,
            io::WY => self.wy,
            io::WX => self.wx,
            _ => 0xFF,
        }
    }

    pub fn write_register(&mut self, reg: u8, value: u8, interrupt_flag: &mut u8) {
        match reg {
            io::LCDC => {
                let was_on = self.lcd_on();
                self.lcdc = value;
                if was_on && !self.lcd_on() {
                    self.ly = 0;
                    self.dot = 0;
                    self.mode = 0;
                    self.lcd_off_m_cycles = 0;
                } else if !was_on && self.lcd_on() {
                    self.ly = 0;
                    self.dot = 0;
                    self.mode = 2;
                    self.window_line = 0;
                }
            }
            io::STAT => self.stat_enables = value & 0x78,
            io::SCY => self.scy = value,
            io::SCX => self.scx = value,
            io::LYC => self.lyc = value,
            io::BGP => self.bgp = value,
            io::OBP0 => self.obp0 = value,
            io::OBP1 => self.obp1 = value,
            io::WY => self.wy = value,
            io::WX => self.wx = value,
            _ => {}
        }
        self.update_stat_line(interrupt_flag);
    }

    pub fn cpu_can_access_vram(&self) -> bool {
        !self.lcd_on() || self.mode != 3
    }

    pub fn cpu_can_access_oam(&self) -> bool {
        !self.lcd_on() || self.mode < 2
    }

    /// M-cycles during which `tick` raises nothing and completes no frame.
    pub fn quiet_m_cycles(&self) -> u32 {
        if !self.lcd_on() {
            return LCD_OFF_FRAME_M_CYCLES.saturating_sub(self.lcd_off_m_cycles + 1);
        }
        let boundary = if self.ly >= 144 {
            DOTS_PER_LINE
        } else if self.dot < MODE2_END {
            MODE2_END
        } else if self.dot < MODE3_END {
            MODE3_END
        } else {
            DOTS_PER_LINE
        };
        let ticks_to_boundary = u32::from(boundary - self.dot).div_ceil(4);
        ticks_to_boundary.saturating_sub(1)
    }

    /// Exactly `n` ticks when `n <= quiet_m_cycles()`.
    pub fn advance(
        &mut self,
        n: u32,
        _vram: &[u8; 0x2000],
        _oam: &[u8; 160],
        _interrupt_flag: &mut u8,
        _frame: &mut [u8; 160 * 144],
    ) {
        if self.lcd_on() {
            self.dot += (4 * n) as u16;
        } else {
            self.lcd_off_m_cycles += n;
        }
    }

    fn render_line(&mut self, vram: &[u8; 0x2000], oam: &[u8; 160], frame: &mut [u8; 160 * 144]) {
        let ly = usize::from(self.ly);
        if ly >= 144 {
            return;
        }
        let mut colors = [0u8; 160];
        if self.lcdc & 0x01 != 0 {
            let map = if self.lcdc & 0x08 != 0 {
                0x1C00
            } else {
                0x1800
            };
            let y = (ly + usize::from(self.scy)) & 0xFF;
            for (x, color) in colors.iter_mut().enumerate() {
                let px = (x + usize::from(self.scx)) & 0xFF;
                let tile = vram[map + (y / 8) * 32 + px / 8];
                *color = self.tile_pixel(vram, tile, y % 8, px % 8);
            }
            let wx = usize::from(self.wx);
            if self.lcdc & 0x20 != 0 && self.wy <= self.ly && wx <= 166 {
                let map = if self.lcdc & 0x40 != 0 {
                    0x1C00
                } else {
                    0x1800
                };
                let wy = usize::from(self.window_line);
                let start = wx.saturating_sub(7);
                for (x, color) in colors.iter_mut().enumerate().skip(start) {
                    let wxp = x + 7 - wx;
                    let tile = vram[map + (wy / 8) * 32 + wxp / 8];
                    *color = self.tile_pixel(vram, tile, wy % 8, wxp % 8);
                }
                if start < 160 {
                    self.window_line = self.window_line.wrapping_add(1);
                }
            }
        }
        let row = &mut frame[ly * 160..ly * 160 + 160];
        for (shade, &color) in row.iter_mut().zip(&colors) {
            *shade = (self.bgp >> (color * 2)) & 3;
        }
        if self.lcdc & 0x02 != 0 {
            self.render_sprites(vram, oam, ly, &colors, row);
        }
    }

    fn tile_pixel(&self, vram: &[u8; 0x2000], tile: u8, row: usize, col: usize) -> u8 {
        let base = if self.lcdc & 0x10 != 0 {
            usize::from(tile) * 16
        } else {
            (0x1000 + i32::from(tile as i8) * 16) as usize
        };
        let lo = vram[(base + row * 2) & 0x1FFF];
        let hi = vram[(base + row * 2 + 1) & 0x1FFF];
        let bit = 7 - col;
        ((lo >> bit) & 1) | (((hi >> bit) & 1) << 1)
    }

    fn render_sprites(
        &self,
        vram: &[u8; 0x2000],
        oam: &[u8; 160],
        ly: usize,
        bg: &[u8; 160],
        row: &mut [u8],
    ) {
        let height = if self.lcdc & 0x04 != 0 { 16 } else { 8 };
        let mut chosen = [0usize; 10];
        let mut count = 0;
        for index in 0..40 {
            let y = usize::from(oam[index * 4]);
            if ly + 16 >= y && ly + 16 < y + height {
                chosen[count] = index;
                count += 1;
                if count == 10 {
                    break;
                }
            }
        }
        let chosen = &mut chosen[..count];
        // Highest priority last: smaller X wins, then smaller OAM index.
        chosen.sort_by_key(|&i| std::cmp::Reverse((oam[i * 4 + 1], i)));
        for &index in chosen.iter() {
            let y = usize::from(oam[index * 4]);
            let x = i32::from(oam[index * 4 + 1]) - 8;
            let mut tile = oam[index * 4 + 2];
            let attrs = oam[index * 4 + 3];
            let mut line = ly + 16 - y;
            if attrs & 0x40 != 0 {
                line = height - 1 - line;
            }
            if height == 16 {
                tile &= 0xFE;
            }
            let base = usize::from(tile) * 16 + line * 2;
            let (lo, hi) = (vram[base & 0x1FFF], vram[(base + 1) & 0x1FFF]);
            let palette = if attrs & 0x10 != 0 {
                self.obp1
            } else {
                self.obp0
            };
            for col in 0..8 {
                let sx = x + col;
                if !(0..160).contains(&sx) {
                    continue;
                }
                let bit = if attrs & 0x20 != 0 { col } else { 7 - col };
                let color = ((lo >> bit) & 1) | (((hi >> bit) & 1) << 1);
                let sx = sx as usize;
                if color == 0 || (attrs & 0x80 != 0 && bg[sx] != 0) {
                    continue;
                }
                row[sx] = (palette >> (color * 2)) & 3;
            }
        }
    }
}
