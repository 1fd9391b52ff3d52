//! The xorshift64 generator the unit tests draw their random samples from (test builds only).

/// xorshift64 (shifts 13, 7, 17); `0` holds the state, which must not be zero.
pub(crate) struct XorShift(pub(crate) u64);

impl XorShift {
    /// Step the state and return it.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
