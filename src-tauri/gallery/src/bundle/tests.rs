use super::archive::split;

#[test]
fn a_signature_block_is_split_off_and_a_damaged_one_refused() {
    let zip = b"PK\x03\x04zip bytes".to_vec();
    assert!(split(&zip).unwrap().signature.is_none());
    let der = b"\x30\x03\x02\x01\x01";
    let signed = [
        &zip[..],
        b"MCPB_SIG_V1",
        &5u32.to_le_bytes(),
        der,
        b"MCPB_SIG_END",
    ]
    .concat();
    let s = split(&signed).unwrap();
    assert_eq!(s.zip, &zip[..]);
    assert_eq!(s.signature, Some(&der[..]));
    let wrong_length = [
        &zip[..],
        b"MCPB_SIG_V1",
        &9u32.to_le_bytes(),
        der,
        b"MCPB_SIG_END",
    ]
    .concat();
    assert!(split(&wrong_length).is_err());
    let no_header = [&zip[..], b"MCPB_SIG_END"].concat();
    assert!(split(&no_header).is_err());
}
