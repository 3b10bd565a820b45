// The power-on both SameBoy hand tools share (`sameboy-run.c`, `sameboy-trace.c`): DMG-B or
// CGB-E from SameBoy's own boot ROM (from $SAMEBOY_BOOT_ROMS), the RAM seed
// ../shared/peers/sameboy-bess uses, the grey DMG palette, CGB colours uncorrected, no border,
// no joypad bouncing, and the cartridge clock counting emulated time. Include it once, after
// SameBoy's headers.
#ifndef SAMEBOY_POWER_ON_H
#define SAMEBOY_POWER_ON_H

#include <Core/gb.h>
#include <Core/random.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

// The seed sameboy-bess uses, so that a program sees the same power-on RAM in both hosts.
#define POWER_ON_SEED 0x5A3EB0075A3EB007ULL

static const char *power_on_boot_dir;

static void power_on_fail(const char *what, const char *name)
{
	fprintf(stderr, "sameboy: %s %s\n", what, name);
	exit(2);
}

static void power_on_boot_rom_request(GB_gameboy_t *gb, GB_boot_rom_t type)
{
	const char *file = type == GB_BOOT_ROM_DMG || type == GB_BOOT_ROM_DMG_0 ? "dmg_boot.bin" : "cgb_boot.bin";
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", power_on_boot_dir, file);
	if (GB_load_boot_rom(gb, path)) power_on_fail("cannot load boot ROM", path);
}

static uint32_t power_on_encode_rgb(GB_gameboy_t *gb, uint8_t r, uint8_t g, uint8_t b)
{
	(void) gb;
	return ((uint32_t) r << 16) | ((uint32_t) g << 8) | b;
}

static char *power_on_no_debugger_input(GB_gameboy_t *gb)
{
	(void) gb;
	return NULL;
}

// DMG (DMG-B) or CGB (CGB-E), any case.
static GB_model_t power_on_model(const char *name)
{
	if (!strcasecmp(name, "DMG")) return GB_MODEL_DMG_B;
	if (!strcasecmp(name, "CGB")) return GB_MODEL_CGB_E;
	power_on_fail("model is neither DMG nor CGB:", name);
	return GB_MODEL_CGB_E;
}

// A SameBoy with ROM inserted, reset and about to run its boot ROM, drawing into `pixels`
// (256 x 224, 0xRRGGBB).
static GB_gameboy_t *power_on(const char *rom, GB_model_t model, uint32_t *pixels)
{
	power_on_boot_dir = getenv("SAMEBOY_BOOT_ROMS");
	if (!power_on_boot_dir || !*power_on_boot_dir) {
		power_on_fail("set SAMEBOY_BOOT_ROMS to the folder with", "dmg_boot.bin and cgb_boot.bin");
	}
	GB_random_seed(POWER_ON_SEED);
	GB_gameboy_t *gb = GB_init(GB_alloc(), model);
	GB_set_input_callback(gb, power_on_no_debugger_input);
	GB_set_async_input_callback(gb, NULL);
	GB_set_boot_rom_load_callback(gb, power_on_boot_rom_request);
	GB_set_color_correction_mode(gb, GB_COLOR_CORRECTION_DISABLED);
	GB_set_rgb_encode_callback(gb, power_on_encode_rgb);
	GB_set_palette(gb, &GB_PALETTE_GREY);
	GB_set_border_mode(gb, GB_BORDER_NEVER);
	GB_set_pixels_output(gb, pixels);
	GB_set_emulate_joypad_bouncing(gb, false);
	if (GB_load_rom(gb, rom)) power_on_fail("cannot load ROM", rom);
	GB_random_seed(POWER_ON_SEED);
	GB_reset(gb);
	GB_set_rtc_mode(gb, GB_RTC_MODE_ACCURATE);
	return gb;
}

#endif
