//! Strict parsing of Data arguments from JSON text (R3, R4, R10, R21 and the type checks).
