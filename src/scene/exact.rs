//! Fixed-size arrays in scene files, read with their length checked. serde reads an `[f64; 3]`
//! from the first three elements of a TOML array and drops the rest, so `gravity = [0, 0, -9.8,
//! 5]` would load as if the 5 were not there; these readers refuse any other length with the
//! parser's message, which names the line (use with `#[serde(deserialize_with = "…")]`).

use serde::de::Error;
use serde::{Deserialize, Deserializer};

/// Exactly `N` elements.
pub fn array<'de, D, T, const N: usize>(d: D) -> Result<[T; N], D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    exactly(Vec::deserialize(d)?)
}

/// Absent, or exactly `N` elements.
pub fn option<'de, D, T, const N: usize>(d: D) -> Result<Option<[T; N]>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<Vec<T>>::deserialize(d)?.map(exactly).transpose()
}

/// A list of arrays of exactly `N` elements each.
pub fn list<'de, D, T, const N: usize>(d: D) -> Result<Vec<[T; N]>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Vec::<Vec<T>>::deserialize(d)?.into_iter().map(exactly).collect()
}

/// Absent, or a list of arrays of exactly `N` elements each.
pub fn option_list<'de, D, T, const N: usize>(d: D) -> Result<Option<Vec<[T; N]>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    match Option::<Vec<Vec<T>>>::deserialize(d)? {
        None => Ok(None),
        Some(rows) => rows.into_iter().map(exactly).collect::<Result<_, _>>().map(Some),
    }
}

fn exactly<E: Error, T, const N: usize>(items: Vec<T>) -> Result<[T; N], E> {
    let len = items.len();
    items.try_into().map_err(|_| E::invalid_length(len, &format!("an array of {N} numbers").as_str()))
}

#[cfg(test)]
mod tests {
    #[derive(Debug, serde::Deserialize)]
    struct Three {
        #[serde(deserialize_with = "super::array")]
        v: [f64; 3],
    }

    #[test]
    fn only_the_declared_length_is_read() {
        assert_eq!(toml::from_str::<Three>("v = [1.0, 2.0, 3.0]").unwrap().v, [1.0, 2.0, 3.0]);
        for wrong in ["v = [1.0, 2.0, 3.0, 4.0]", "v = [1.0, 2.0]"] {
            let e = toml::from_str::<Three>(wrong).unwrap_err().to_string();
            assert!(e.contains("an array of 3 numbers"), "{wrong}: {e}");
        }
    }
}
