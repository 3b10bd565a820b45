//! An SM83 assembler for building our own ROMs from source.
