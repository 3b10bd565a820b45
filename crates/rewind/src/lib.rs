//! Rewind: input log, snapshot ring, seek.
