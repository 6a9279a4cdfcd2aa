//! Elicitation forms: the flat JSON Schema a server sends (strings with formats and lengths,
//! numbers and integers with bounds, booleans, single-select enums — plain or titled — and
//! multi-select arrays of enums), its defaults, validation of what the user filled in, and which
//! of its fields hold secrets the audit log must not keep.

use serde_json::{Map, Value};

/// What the audit log keeps of a secret field's value.
pub const REDACTED: &str = "[redacted]";

/// Words that make a field's name a secret's, compared lowercased and without `-`, `_`, `.` or
/// spaces (so `API_KEY`, `api-key` and `apiKey` are all `apikey`). `token` also catches
/// `maxTokens`: a number kept out of the audit log costs less than a token kept in it.
const SECRET_NAMES: [&str; 9] = [
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "credential",
];

/// Whether the form field `name` with schema `prop` holds a secret: its schema says so
/// (`format: "password"` or `writeOnly: true`) or its name does ([`SECRET_NAMES`]). rmcp 3.9
/// refuses a string `format` other than email, uri, date and date-time, so in practice the
/// name decides.
pub fn is_secret_field(name: &str, prop: &Value) -> bool {
    let said = prop.get("format").and_then(Value::as_str) == Some("password")
        || prop.get("writeOnly").and_then(Value::as_bool) == Some(true);
    let plain: String = name
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | '.' | ' '))
        .flat_map(char::to_lowercase)
        .collect();
    said || SECRET_NAMES.iter().any(|w| plain.contains(w))
}

/// `values` for the audit log: the value of every secret field ([`is_secret_field`]) of
/// `schema`'s form, and of any field the form does not have whose name looks secret, is
/// [`REDACTED`]. Anything but an object is returned as it is.
pub fn redacted(schema: &Value, values: &Value) -> Value {
    let Some(values) = values.as_object() else {
        return values.clone();
    };
    let props = schema.get("properties").and_then(Value::as_object);
    let secret = |name: &str| {
        let prop = props.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
        is_secret_field(name, prop)
    };
    Value::Object(
        values
            .iter()
            .map(|(k, v)| {
                let shown = if secret(k) && !v.is_null() {
                    Value::String(REDACTED.to_owned())
                } else {
                    v.clone()
                };
                (k.clone(), shown)
            })
            .collect(),
    )
}

/// The `default` of every property of a flat elicitation schema that has one.
pub fn defaults(schema: &Value) -> Map<String, Value> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|props| {
            props
                .iter()
                .filter_map(|(k, v)| v.get("default").map(|d| (k.clone(), d.clone())))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether every required property has a default (so a standing "allow" can answer alone).
pub fn defaults_cover_required(schema: &Value) -> bool {
    let d = defaults(schema);
    required(schema).iter().all(|r| d.contains_key(*r))
}

fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// The allowed values of a single-select enum property (`enum`, or titled `oneOf`/`anyOf` consts).
pub fn choices(prop: &Value) -> Option<Vec<Value>> {
    if let Some(e) = prop.get("enum").and_then(Value::as_array) {
        return Some(e.clone());
    }
    let list = prop
        .get("oneOf")
        .or_else(|| prop.get("anyOf"))
        .and_then(Value::as_array)?;
    Some(
        list.iter()
            .filter_map(|o| o.get("const").cloned())
            .collect(),
    )
}

/// Checks `values` against the schema; returns the first problem in words.
pub fn validate(schema: &Value, values: &Value) -> Result<Map<String, Value>, String> {
    let Some(values) = values.as_object() else {
        return Err("the answer must be an object of field values".into());
    };
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for r in required(schema) {
        if values.get(r).is_none_or(Value::is_null) {
            return Err(format!("{} is required", title(&props, r)));
        }
    }
    for (key, v) in values {
        let Some(prop) = props.get(key) else {
            return Err(format!("{key:?} is not a field of this form"));
        };
        let name = title(&props, key);
        if v.is_null() {
            continue;
        }
        field_problem(prop, &name, v)?;
    }
    Ok(values
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect())
}

/// What is wrong with `v` as the value of the field `prop` (named `name`), if anything.
fn field_problem(prop: &Value, name: &str, v: &Value) -> Result<(), String> {
    match prop.get("type").and_then(Value::as_str).unwrap_or("string") {
        "string" => text_problem(prop, name, v),
        t @ ("number" | "integer") => number_problem(prop, name, v, t == "integer"),
        "boolean" if !v.is_boolean() => Err(format!("{name} must be yes or no")),
        "array" => choices_problem(prop, name, v),
        _ => Ok(()),
    }
}

fn text_problem(prop: &Value, name: &str, v: &Value) -> Result<(), String> {
    let Some(s) = v.as_str() else {
        return Err(format!("{name} must be text"));
    };
    let len = s.chars().count() as u64;
    if let Some(min) = prop.get("minLength").and_then(Value::as_u64)
        && len < min
    {
        return Err(format!("{name} needs at least {min} characters"));
    }
    if let Some(max) = prop.get("maxLength").and_then(Value::as_u64)
        && len > max
    {
        return Err(format!("{name} takes at most {max} characters"));
    }
    if let Some(c) = choices(prop)
        && !c.contains(v)
    {
        return Err(format!("{name} must be one of the listed choices"));
    }
    match prop.get("format").and_then(Value::as_str) {
        Some("email") if !s.contains('@') => Err(format!("{name} must be an email address")),
        Some("uri") if url::Url::parse(s).is_err() => Err(format!("{name} must be a URL")),
        _ => Ok(()),
    }
}

fn number_problem(prop: &Value, name: &str, v: &Value, whole: bool) -> Result<(), String> {
    let Some(n) = v.as_f64() else {
        return Err(format!("{name} must be a number"));
    };
    if whole && n.fract() != 0.0 {
        return Err(format!("{name} must be a whole number"));
    }
    if let Some(min) = prop.get("minimum").and_then(Value::as_f64)
        && n < min
    {
        return Err(format!("{name} must be at least {min}"));
    }
    if let Some(max) = prop.get("maximum").and_then(Value::as_f64)
        && n > max
    {
        return Err(format!("{name} must be at most {max}"));
    }
    Ok(())
}

fn choices_problem(prop: &Value, name: &str, v: &Value) -> Result<(), String> {
    let Some(items) = v.as_array() else {
        return Err(format!("{name} must be a list of choices"));
    };
    let allowed = prop.get("items").and_then(choices);
    if let Some(allowed) = allowed
        && items.iter().any(|i| !allowed.contains(i))
    {
        return Err(format!("{name} must only contain the listed choices"));
    }
    let n = items.len() as u64;
    if let Some(min) = prop.get("minItems").and_then(Value::as_u64)
        && n < min
    {
        return Err(format!("{name} needs at least {min} choices"));
    }
    if let Some(max) = prop.get("maxItems").and_then(Value::as_u64)
        && n > max
    {
        return Err(format!("{name} takes at most {max} choices"));
    }
    Ok(())
}

fn title(props: &Map<String, Value>, key: &str) -> String {
    props
        .get(key)
        .and_then(|p| p.get("title"))
        .and_then(Value::as_str)
        .unwrap_or(key)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_fields_are_redacted_by_schema_or_name_and_the_rest_kept() {
        let schema = json!({"type": "object", "properties": {
            "user": {"type": "string"},
            "pw": {"type": "string", "format": "password"},
            "pin": {"type": "string", "writeOnly": true},
            "API_KEY": {"type": "string"},
            "accessToken": {"type": "string"},
            "Pass-Phrase": {"type": "string"},
            "clientSecret": {"type": "string"},
            "keyboard": {"type": "string"},
            "remember": {"type": "boolean"}
        }});
        let values = json!({
            "user": "ada", "pw": "p1", "pin": "1234", "API_KEY": "k", "accessToken": "t",
            "Pass-Phrase": "pp", "clientSecret": "cs", "keyboard": "qwerty", "remember": true,
            "password": "not in the form", "api_token": null
        });
        let audited = redacted(&schema, &values);
        assert_eq!(
            audited,
            json!({
                "user": "ada", "pw": REDACTED, "pin": REDACTED, "API_KEY": REDACTED,
                "accessToken": REDACTED, "Pass-Phrase": REDACTED, "clientSecret": REDACTED,
                "keyboard": "qwerty", "remember": true, "password": REDACTED, "api_token": null
            })
        );
        assert_eq!(redacted(&schema, &json!("text")), json!("text"));
    }

    fn schema() -> Value {
        json!({"type": "object", "required": ["name", "size"], "properties": {
            "name": {"type": "string", "title": "Name", "minLength": 2, "default": "Ada"},
            "email": {"type": "string", "format": "email"},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "ok": {"type": "boolean", "default": true},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 2}
        }})
    }

    #[test]
    fn defaults_and_required() {
        assert!(!defaults_cover_required(&schema()));
        assert_eq!(
            Value::Object(defaults(&schema())),
            json!({"name": "Ada", "ok": true})
        );
    }

    #[test]
    fn validation_names_the_field() {
        let s = schema();
        assert!(
            validate(
                &s,
                &json!({"name": "Ada", "size": "s", "age": 36, "tags": ["a"]})
            )
            .is_ok()
        );
        let e = |v: Value| validate(&s, &v).unwrap_err();
        assert_eq!(e(json!({"size": "s"})), "Name is required");
        assert_eq!(
            e(json!({"name": "A", "size": "s"})),
            "Name needs at least 2 characters"
        );
        assert!(e(json!({"name": "Ada", "size": "m"})).contains("listed choices"));
        assert!(e(json!({"name": "Ada", "size": "s", "age": 1.5})).contains("whole number"));
        assert!(e(json!({"name": "Ada", "size": "s", "age": 200})).contains("at most 150"));
        assert!(e(json!({"name": "Ada", "size": "s", "email": "nope"})).contains("email"));
        assert!(e(json!({"name": "Ada", "size": "s", "tags": ["c"]})).contains("listed choices"));
        assert!(e(json!({"name": "Ada", "size": "s", "extra": 1})).contains("not a field"));
        assert!(e(json!({"name": "Ada", "size": "s", "ok": "yes"})).contains("yes or no"));
    }
}
