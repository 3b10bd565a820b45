; MBC1 + RAM + battery, 128 KiB ROM, 32 KiB RAM: see include/mbc_test.inc.
DEF MBC_KIND EQU 1
DEF ROM_BANKS EQU 8
DEF RAM_BANKS EQU 4
    TITLE "BS MBC1 RAM"
    CART_TYPE $03 ; MBC1+RAM+BATTERY
    RAM_SIZE $03  ; 32 KiB, four banks
    INCLUDE "include/mbc_test.inc"
