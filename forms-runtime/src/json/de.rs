//! The own reader as a serde `Deserializer`, for the answer checker's seeds
//! (`answer/seed.rs`): it calls the seeds' visitors exactly as serde_json's `Deserializer`
//! calls them for the methods the seeds use (`deserialize_any`, `deserialize_ignored_any`,
//! and, for property names, `deserialize_str`). Any other method, and anything the reader
//! gives up on, ends the read with an error that carries nothing: the caller then reads the
//! text with serde_json, which decides and words it.

use super::{GiveUp, Number, Reader, LEVELS_MAX};
use serde::de::{self, DeserializeSeed, Visitor};
use std::borrow::Cow;
use std::fmt;

/// A read that ended early: the reader gave up, or a visitor refused (the seeds keep their
/// own account of why).
#[derive(Debug)]
pub(crate) struct Stopped;

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the runtime's JSON reader stopped")
    }
}

impl std::error::Error for Stopped {}

impl de::Error for Stopped {
    #[cold]
    fn custom<T: fmt::Display>(_: T) -> Self {
        Stopped
    }
}

impl From<GiveUp> for Stopped {
    #[cold]
    fn from(_: GiveUp) -> Self {
        Stopped
    }
}

/// A serde `Deserializer` over JSON text.
pub(crate) struct Deserializer<'a> {
    r: Reader<'a>,
    /// Arrays and objects open around the value being read (serde_json's recursion count).
    level: usize,
}

impl<'a> Deserializer<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Deserializer {
            r: Reader::new(text),
            level: 0,
        }
    }

    /// After the value: only whitespace may follow.
    pub(crate) fn end(&mut self) -> Result<(), Stopped> {
        Ok(self.r.end()?)
    }

    /// Opens an array or object (its bracket taken), as serde_json counts them.
    fn open(&mut self) -> Result<(), Stopped> {
        if self.level >= LEVELS_MAX {
            return Err(Stopped);
        }
        self.level += 1;
        Ok(())
    }
}

fn string<'de, V: Visitor<'de>>(s: Cow<'de, str>, visitor: V) -> Result<V::Value, Stopped> {
    match s {
        Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
        Cow::Owned(s) => visitor.visit_str(&s),
    }
}

/// Deserializer methods the seeds do not use: the reader does not read for them.
macro_rules! not_read {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stopped> {
                Err(Stopped)
            }
        )*
    };
}

macro_rules! not_read_named {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(
                self,
                _: &'static str,
                _: V,
            ) -> Result<V::Value, Stopped> {
                Err(Stopped)
            }
        )*
    };
}

macro_rules! not_read_rest {
    () => {
        not_read! {
            deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
            deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_f32
            deserialize_f64 deserialize_char deserialize_bytes deserialize_byte_buf
            deserialize_option deserialize_unit deserialize_seq deserialize_map
        }
        not_read_named! { deserialize_unit_struct deserialize_newtype_struct }

        fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Stopped> {
            Err(Stopped)
        }

        fn deserialize_tuple_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: usize,
            _: V,
        ) -> Result<V::Value, Stopped> {
            Err(Stopped)
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stopped> {
            Err(Stopped)
        }

        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stopped> {
            Err(Stopped)
        }
    };
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Stopped;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stopped> {
        match self.r.peek().ok_or(GiveUp)? {
            b'"' => {
                self.r.bump();
                string(self.r.string()?, visitor)
            }
            b'-' | b'0'..=b'9' => match self.r.number()? {
                Number::U(u) => visitor.visit_u64(u),
                Number::I(i) => visitor.visit_i64(i),
                Number::F(f) => visitor.visit_f64(f),
            },
            b'n' => {
                self.r.literal(b"null")?;
                visitor.visit_unit()
            }
            b't' => {
                self.r.literal(b"true")?;
                visitor.visit_bool(true)
            }
            b'f' => {
                self.r.literal(b"false")?;
                visitor.visit_bool(false)
            }
            b'[' => {
                self.r.bump();
                self.open()?;
                let value = visitor.visit_seq(Seq {
                    de: &mut *self,
                    first: true,
                })?;
                self.level -= 1;
                self.r.expect(b']')?;
                Ok(value)
            }
            b'{' => {
                self.r.bump();
                self.open()?;
                let value = visitor.visit_map(Map {
                    de: &mut *self,
                    first: true,
                })?;
                self.level -= 1;
                self.r.expect(b'}')?;
                Ok(value)
            }
            _ => Err(Stopped),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stopped> {
        self.r.skip(false, self.level)?;
        visitor.visit_unit()
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stopped> {
        if self.r.peek() != Some(b'"') {
            return Err(Stopped);
        }
        self.deserialize_any(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stopped> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stopped> {
        self.deserialize_str(visitor)
    }

    not_read_rest!();
}

/// The elements of an array whose `[` was taken.
struct Seq<'d, 'de> {
    de: &'d mut Deserializer<'de>,
    first: bool,
}

impl<'de> de::SeqAccess<'de> for Seq<'_, 'de> {
    type Error = Stopped;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Stopped> {
        let r = &mut self.de.r;
        match r.peek() {
            Some(b']') => return Ok(None),
            Some(b',') if !self.first => {
                r.bump();
                r.after_comma()?;
            }
            Some(_) if self.first => self.first = false,
            _ => return Err(Stopped),
        }
        seed.deserialize(&mut *self.de).map(Some)
    }
}

/// The members of an object whose `{` was taken.
struct Map<'d, 'de> {
    de: &'d mut Deserializer<'de>,
    first: bool,
}

impl<'de> de::MapAccess<'de> for Map<'_, 'de> {
    type Error = Stopped;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Stopped> {
        let r = &mut self.de.r;
        match r.peek() {
            Some(b'}') => return Ok(None),
            Some(b',') if !self.first => {
                r.bump();
            }
            Some(_) if self.first => self.first = false,
            _ => return Err(Stopped),
        }
        r.expect(b'"')?;
        seed.deserialize(Key { r }).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Stopped> {
        self.de.r.expect(b':')?;
        seed.deserialize(&mut *self.de)
    }
}

/// A property name whose opening `"` was taken: read whole whatever the seed asks for, as
/// serde_json reads a key.
struct Key<'r, 'de> {
    r: &'r mut Reader<'de>,
}

impl<'de> de::Deserializer<'de> for Key<'_, 'de> {
    type Error = Stopped;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stopped> {
        string(self.r.string()?, visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stopped> {
        self.deserialize_any(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stopped> {
        self.deserialize_any(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stopped> {
        self.deserialize_any(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stopped> {
        self.deserialize_any(visitor)
    }

    not_read_rest!();
}
