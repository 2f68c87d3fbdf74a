//! The JSON data model of a `Serialize` value, for reading fields of the report by
//! their JSON names (DESIGN.md section 5) without depending on its Rust types. It maps
//! values the way serde_json does: structs and maps to objects, sequences and tuples
//! to arrays, `None` and unit to null, unit variants to their names, other variants to
//! one-key objects, untagged enums to their content.

use serde::Serialize;
use serde::ser;
use std::fmt;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The elements of an array, or none.
    pub fn items(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => &[],
        }
    }

    /// An integer, or a float with an integral value.
    pub fn as_int(&self) -> Option<i128> {
        match *self {
            Json::Int(i) => Some(i),
            Json::Float(f) if f.fract() == 0.0 && f.abs() < 1e30 => Some(f as i128),
            _ => None,
        }
    }
}

/// `value` as JSON.
pub fn to_json<T: Serialize>(value: &T) -> Json {
    value
        .serialize(Tree)
        .expect("serializing into memory does not fail")
}

#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Error {
        Error(msg.to_string())
    }
}

/// The serializer building a [`Json`].
struct Tree;

/// An array or object being built; `variant` wraps it as `{variant: ...}`.
struct Compound {
    variant: Option<&'static str>,
    items: Vec<Json>,
    members: Vec<(String, Json)>,
    key: Option<String>,
}

impl Compound {
    fn new(variant: Option<&'static str>) -> Compound {
        Compound {
            variant,
            items: Vec::new(),
            members: Vec::new(),
            key: None,
        }
    }

    fn wrap(variant: Option<&'static str>, value: Json) -> Json {
        match variant {
            Some(v) => Json::Object(vec![(v.to_string(), value)]),
            None => value,
        }
    }

    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(Tree)?);
        Ok(())
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        self.members.push((key.to_string(), value.serialize(Tree)?));
        Ok(())
    }

    fn array(self) -> Result<Json, Error> {
        Ok(Compound::wrap(self.variant, Json::Array(self.items)))
    }

    fn object(self) -> Result<Json, Error> {
        Ok(Compound::wrap(self.variant, Json::Object(self.members)))
    }
}

impl ser::Serializer for Tree {
    type Ok = Json;
    type Error = Error;
    type SerializeSeq = Compound;
    type SerializeTuple = Compound;
    type SerializeTupleStruct = Compound;
    type SerializeTupleVariant = Compound;
    type SerializeMap = Compound;
    type SerializeStruct = Compound;
    type SerializeStructVariant = Compound;

    fn serialize_bool(self, v: bool) -> Result<Json, Error> {
        Ok(Json::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Json, Error> {
        Ok(Json::Int(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<Json, Error> {
        Ok(Json::Int(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<Json, Error> {
        Ok(Json::Int(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Json, Error> {
        Ok(Json::Int(v.into()))
    }
    fn serialize_u8(self, v: u8) -> Result<Json, Error> {
        Ok(Json::Int(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<Json, Error> {
        Ok(Json::Int(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<Json, Error> {
        Ok(Json::Int(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Json, Error> {
        Ok(Json::Int(v.into()))
    }
    fn serialize_f32(self, v: f32) -> Result<Json, Error> {
        Ok(Json::Float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Json, Error> {
        Ok(Json::Float(v))
    }
    fn serialize_char(self, v: char) -> Result<Json, Error> {
        Ok(Json::Str(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Json, Error> {
        Ok(Json::Str(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Json, Error> {
        Ok(Json::Array(
            v.iter().map(|&b| Json::Int(b.into())).collect(),
        ))
    }
    fn serialize_none(self) -> Result<Json, Error> {
        Ok(Json::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Json, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Json, Error> {
        Ok(Json::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Json, Error> {
        Ok(Json::Null)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Json, Error> {
        Ok(Json::Str(variant.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Json, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Json, Error> {
        Ok(Compound::wrap(Some(variant), value.serialize(self)?))
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound, Error> {
        Ok(Compound::new(None))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound, Error> {
        Ok(Compound::new(None))
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Compound, Error> {
        Ok(Compound::new(None))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound, Error> {
        Ok(Compound::new(Some(variant)))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound, Error> {
        Ok(Compound::new(None))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound, Error> {
        Ok(Compound::new(None))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound, Error> {
        Ok(Compound::new(Some(variant)))
    }
}

impl ser::SerializeSeq for Compound {
    type Ok = Json;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Json, Error> {
        self.array()
    }
}

impl ser::SerializeTuple for Compound {
    type Ok = Json;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Json, Error> {
        self.array()
    }
}

impl ser::SerializeTupleStruct for Compound {
    type Ok = Json;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Json, Error> {
        self.array()
    }
}

impl ser::SerializeTupleVariant for Compound {
    type Ok = Json;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Json, Error> {
        self.array()
    }
}

impl ser::SerializeMap for Compound {
    type Ok = Json;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        // JSON object keys are strings; serde_json writes integer keys as decimals.
        self.key = Some(match key.serialize(Tree)? {
            Json::Str(s) => s,
            Json::Int(i) => i.to_string(),
            other => return Err(Error(format!("a map key must be a string, not {other:?}"))),
        });
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.key.take().expect("serde calls serialize_key first");
        self.member(&key, value)
    }
    fn end(self) -> Result<Json, Error> {
        self.object()
    }
}

impl ser::SerializeStruct for Compound {
    type Ok = Json;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.member(key, value)
    }
    fn end(self) -> Result<Json, Error> {
        self.object()
    }
}

impl ser::SerializeStructVariant for Compound {
    type Ok = Json;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.member(key, value)
    }
    fn end(self) -> Result<Json, Error> {
        self.object()
    }
}
