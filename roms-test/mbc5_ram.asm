; MBC5 + RAM + battery, 256 KiB ROM, 32 KiB RAM: see include/mbc_test.inc.
DEF MBC_KIND EQU 5
DEF ROM_BANKS EQU 16
DEF RAM_BANKS EQU 4
    TITLE "BS MBC5 RAM"
    CART_TYPE $1B ; MBC5+RAM+BATTERY
    RAM_SIZE $03  ; 32 KiB, four banks
    INCLUDE "include/mbc_test.inc"
