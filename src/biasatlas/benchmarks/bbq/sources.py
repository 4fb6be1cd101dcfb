"""Where each BBQ-family dataset comes from: canonical URL and sha256 per file (DESIGN.md, "Offline stance").

Every file is pinned to the commit the shared copies were checked against (their PROVENANCE.md):
nyu-mll/BBQ @ bea11bd, Veranep/MBBQ @ adaa401 (licence not stated upstream, so the package
fetches it and never ships it), naver-ai/KoBBQ @ 0dd165a, YFHuangxxxx/CBBQ @ 95eaf2e (the
gender category: the only one whose bytes were checked here), langtech-bsc/EsBBQ-CaBBQ @ ee2e0f6
(EsBBQ ``data_es/``, CaBBQ ``data_ca/``; Apache-2.0). MBBQ's, EsBBQ's and CaBBQ's sha256 are those of the
upstream ``.jsonl`` bytes (the shared copies are gzip-compressed; ``gzip -dc`` gives them).
"""

from __future__ import annotations

from ..fetch import DataFile

_BBQ = "https://raw.githubusercontent.com/nyu-mll/BBQ/bea11bd97d79217245b5871acd247b9d6eb24598/"
_MBBQ = "https://raw.githubusercontent.com/Veranep/MBBQ/adaa40172cdcf52eb403c01954a1aef8b0b1e97d/data/"
_KOBBQ = "https://raw.githubusercontent.com/naver-ai/KoBBQ/0dd165aeaaacd1bd46c63513a9b2e9875eb6dce7/data/"
_ESCABBQ = "https://raw.githubusercontent.com/langtech-bsc/EsBBQ-CaBBQ/ee2e0f6123f718b735fc445d368d92acd2c223be/"
_CBBQ = "https://raw.githubusercontent.com/YFHuangxxxx/CBBQ/95eaf2eeaa0b936f3e97e3424f134e9d7655da98/data/gender/"

#: BBQ's eleven category files, by category.
BBQ_FILES: dict[str, DataFile] = {
    "Age": DataFile("Age.jsonl", _BBQ + "data/Age.jsonl",
                   "46e805b3fc2d8cbd26eeb8e8430d98cf7b2dc9c83574ff3674e8ce4f0fca2a60"),
    "Disability_status": DataFile("Disability_status.jsonl", _BBQ + "data/Disability_status.jsonl",
                   "375d40d9b71f056150264445ec189b13934998f3f49a1e311aa7578eb3b45e5f"),
    "Gender_identity": DataFile("Gender_identity.jsonl", _BBQ + "data/Gender_identity.jsonl",
                   "8b5adbb368510a97d5775dc43e1c719e0249fe2da33f13c83e3e29edafec7a00"),
    "Nationality": DataFile("Nationality.jsonl", _BBQ + "data/Nationality.jsonl",
                   "a583e74666aec0341ded8aa3983e7cad694eb24de72c254d28b2df3035720090"),
    "Physical_appearance": DataFile("Physical_appearance.jsonl", _BBQ + "data/Physical_appearance.jsonl",
                   "e48d7e13508565f4801574e611043470c25c95a0a62af3699cb5ee7cb02608fb"),
    "Race_ethnicity": DataFile("Race_ethnicity.jsonl", _BBQ + "data/Race_ethnicity.jsonl",
                   "4a9f1214cfaa115ce7f0bdb40609122e431f5152c71b8ca64d665e483b946ae6"),
    "Race_x_SES": DataFile("Race_x_SES.jsonl", _BBQ + "data/Race_x_SES.jsonl",
                   "af8e2ae3d0e5be9ebcbfe7149e591d47ff649e263307f4548f7fb12f6a6d83e8"),
    "Race_x_gender": DataFile("Race_x_gender.jsonl", _BBQ + "data/Race_x_gender.jsonl",
                   "e5dbba782f8c4e25b99dd5470b5136e2db73dbf401cf6d4a5a3ed31b02f95696"),
    "Religion": DataFile("Religion.jsonl", _BBQ + "data/Religion.jsonl",
                   "cb9555f9f3454a52cd2df85956b59bd7fcca5aa922c8527693b1164d08417616"),
    "SES": DataFile("SES.jsonl", _BBQ + "data/SES.jsonl",
                   "9f92754bb037b0982604b9112705fb81d60a19d9e759c67e4a85e484a070f528"),
    "Sexual_orientation": DataFile("Sexual_orientation.jsonl", _BBQ + "data/Sexual_orientation.jsonl",
                   "2c71036b9e7584fe589c42aef32c1a42bc01b9a5e9b1b8704342630cdb08cefd"),
}
#: The authors' metadata: target_loc and label_type per example (analysis_scripts/).
BBQ_METADATA = DataFile("additional_metadata.csv", _BBQ + "analysis_scripts/additional_metadata.csv",
                        "f36708416b0e7adb81b47ad1926f9c39c2beb611702b73b01e06c9b6c9ffbd3d")


def _mbbq(name: str, sha256: str) -> DataFile:
    return DataFile(name, _MBBQ + name, sha256)


#: MBBQ's files, by (category, language, control set).
MBBQ_FILES: dict[tuple[str, str, bool], DataFile] = {
    ("Age", "en", True): _mbbq("Age_control_en.jsonl",
        "3c4f73e2d38c5a8874af5cc6a8816373510a97936111d6c5784b30419c7a88fe"),
    ("Age", "es", True): _mbbq("Age_control_es.jsonl",
        "edd59bb493f1f9bcd0fccfb9e6eff46395183cfd75f70af1676eb898a8294d78"),
    ("Age", "nl", True): _mbbq("Age_control_nl.jsonl",
        "e7ccbfa5a583658ee381a2f78ceae5eca5dd43dfd5ba6acdd29b3c76312cd75e"),
    ("Age", "tr", True): _mbbq("Age_control_tr.jsonl",
        "316227f5bb0e8423ad27302a9bd894a4e27152e9fc08c6244934592d12e70a5a"),
    ("Age", "en", False): _mbbq("Age_en.jsonl",
        "15d34d6ba4dc7e8f2fc2362ef9a3a37ce148e04b2edd3e3700eac49e4c10871c"),
    ("Age", "es", False): _mbbq("Age_es.jsonl",
        "44995575aa60e19e6db1bc9f262b2aaba07f563d7394eecab6475ad478a191cd"),
    ("Age", "nl", False): _mbbq("Age_nl.jsonl",
        "bf4e0a636be38c0c0dbbac638baaabcc1e25206e7c785ef9b0077ccb2bfbbfa1"),
    ("Age", "tr", False): _mbbq("Age_tr.jsonl",
        "98ef9e3b899cee7faca8ad4f56e7976a757738babaedc36063a0c15da4c27bf8"),
    ("Disability_status", "en", True): _mbbq("Disability_status_control_en.jsonl",
        "0c7b587acd7a60dee4d8f1d6e507593b045b0091882afa008715a8ef3b72a708"),
    ("Disability_status", "es", True): _mbbq("Disability_status_control_es.jsonl",
        "a1745b9e88e4894ef91dbbd102166b2d426cd127ac58766ad00a43c782f5d864"),
    ("Disability_status", "nl", True): _mbbq("Disability_status_control_nl.jsonl",
        "a3159fa78c76b93626d435bd4f4ed646a5861e4d4ad0a08d2eeaec94082c2bbd"),
    ("Disability_status", "tr", True): _mbbq("Disability_status_control_tr.jsonl",
        "eb18cc5eed09610986715b9cbb411bd1499b4cfa1fd07f87e563bdb0dfe3ebfb"),
    ("Disability_status", "en", False): _mbbq("Disability_status_en.jsonl",
        "003424ffe5ebf26302c2cae5af9afd37acd1ff55a86b36412e6bc0b59e1fdc88"),
    ("Disability_status", "es", False): _mbbq("Disability_status_es.jsonl",
        "157202c79093cb182957ef316f477fb20d03a9ef6774078b5c35a1b6aac8db3b"),
    ("Disability_status", "nl", False): _mbbq("Disability_status_nl.jsonl",
        "d0f7bc310cce987d5fff853a922061c0a60d54a5ba6a1d627ca11e21b4112ac5"),
    ("Disability_status", "tr", False): _mbbq("Disability_status_tr.jsonl",
        "44c5cd2a8b4b638b6b6c41e251ec579be82eb4beb9d2133140c9bb268270e720"),
    ("Gender_identity", "en", True): _mbbq("Gender_identity_control_en.jsonl",
        "5e868f6d4d777ba42470e62a91eae89e166b7252ebbbb005a4bc8239cf8c5a10"),
    ("Gender_identity", "es", True): _mbbq("Gender_identity_control_es.jsonl",
        "cc6cf1ba62980541b2d031c0273e2614da938a355bfe2872d97beb6b8da05a12"),
    ("Gender_identity", "nl", True): _mbbq("Gender_identity_control_nl.jsonl",
        "784e1fa5db6200752dd132e8f1d1a4d09599592f1156bf21869b7273af28ccfd"),
    ("Gender_identity", "tr", True): _mbbq("Gender_identity_control_tr.jsonl",
        "5cecd8e9c6d8fda9e235f91366a237f9aef7988d61361b64621f8394c2c6f9bc"),
    ("Gender_identity", "en", False): _mbbq("Gender_identity_en.jsonl",
        "b6e9be11cb0d6c85bb305867e1b74338ff0ec2dfebc02760778a4364130a3d92"),
    ("Gender_identity", "es", False): _mbbq("Gender_identity_es.jsonl",
        "ba872fd284130a3deb6bdc62ad77002b89c67a4622e3d7cc268f233e0df555f6"),
    ("Gender_identity", "nl", False): _mbbq("Gender_identity_nl.jsonl",
        "d2f5a41d1f6d1fdbb05c4ac4fa887f62bd0c135cc3f2e3756bc7531e7e87903e"),
    ("Gender_identity", "tr", False): _mbbq("Gender_identity_tr.jsonl",
        "1e2564322b1f4bce1f3fbddbf766e9c7871465a5eeac27d8911c47d7d0dffadd"),
    ("Physical_appearance", "en", True): _mbbq("Physical_appearance_control_en.jsonl",
        "b6e72dbd119120b6c5da9c2a03eac6675dc07083bc0366e954dcd00fc726c45c"),
    ("Physical_appearance", "es", True): _mbbq("Physical_appearance_control_es.jsonl",
        "2936c5fd2a30241488e7c771823ab95f48c53861b000c5b9c78553730d1cec9f"),
    ("Physical_appearance", "nl", True): _mbbq("Physical_appearance_control_nl.jsonl",
        "70ce0324ccf682a14d35c898b85626315429b8128da2ffad307bbce5ed6ae9d4"),
    ("Physical_appearance", "tr", True): _mbbq("Physical_appearance_control_tr.jsonl",
        "94659b331035f55b73ae91f3e2a009c5eb8c1cf5347e0ebaa349a5eed4372db7"),
    ("Physical_appearance", "en", False): _mbbq("Physical_appearance_en.jsonl",
        "be6d82ef5799133444cd79a16b70f88621f8b30f2545d2973b11d1f8e363df32"),
    ("Physical_appearance", "es", False): _mbbq("Physical_appearance_es.jsonl",
        "423d34b206aad8586041a4e5ba77781cce887af8b5d0fbe70414b34757e317e8"),
    ("Physical_appearance", "nl", False): _mbbq("Physical_appearance_nl.jsonl",
        "a9dca56989be0c98bf2ca0150196241ed39794867c551e82741462d8b91fe890"),
    ("Physical_appearance", "tr", False): _mbbq("Physical_appearance_tr.jsonl",
        "fd1aadb74dcc3ea24eb3932d4db2784836786844e1f7fb68972a0552035ab69f"),
    ("SES", "en", True): _mbbq("SES_control_en.jsonl",
        "807778b3f974ed3873e12d3930a64cac2c8eff66ba9b3e35d2c25b7d51fb6535"),
    ("SES", "es", True): _mbbq("SES_control_es.jsonl",
        "139988d225bb860b668c114f5fba687129a89fbe33d2255ddc09e67534bbff5a"),
    ("SES", "nl", True): _mbbq("SES_control_nl.jsonl",
        "653f33ffa7c516b462d2e8d1a3038a9d7c413b22e09d2b77c621477b2e763838"),
    ("SES", "tr", True): _mbbq("SES_control_tr.jsonl",
        "3f586dd34ee2f21d1f1f80923b576d44ac6b702eb96a25ece545c6a10216c31a"),
    ("SES", "en", False): _mbbq("SES_en.jsonl",
        "6603a4d2ac5293b2718b13d439361a9b8a16e6be8f600b150b8ab9c0d432efb9"),
    ("SES", "es", False): _mbbq("SES_es.jsonl",
        "7108b3c6809e1557aa366060961d02f30dc6112f2d35863faf745f92fb9ef089"),
    ("SES", "nl", False): _mbbq("SES_nl.jsonl",
        "19969eb8bbd8f783d40ee42db2bccfda9bf3be132a325b60ef37affdb2ee51a7"),
    ("SES", "tr", False): _mbbq("SES_tr.jsonl",
        "7db84dfac8ce1031ac7812c51b88b66f79c00b8b0d2646e0ce47035775aa214f"),
    ("Sexual_orientation", "en", True): _mbbq("Sexual_orientation_control_en.jsonl",
        "c4c5e4c4e7d08f2c3247ea791d73746497cd1c0e1837deb1e0511efbb5a1c0fc"),
    ("Sexual_orientation", "es", True): _mbbq("Sexual_orientation_control_es.jsonl",
        "9235674ce1b6df3e2f36a3cfe0e0d3262e7514e5ee565cc7b4f0adef9bb69f99"),
    ("Sexual_orientation", "nl", True): _mbbq("Sexual_orientation_control_nl.jsonl",
        "22fe68db0fd8e2ba315b487186135688d14633950b146ffcb37ec2ba9a44473f"),
    ("Sexual_orientation", "tr", True): _mbbq("Sexual_orientation_control_tr.jsonl",
        "b1e3d11e3b05ec51eaae98c665cf70a712f56323456d66cc3751e68f3d503f91"),
    ("Sexual_orientation", "en", False): _mbbq("Sexual_orientation_en.jsonl",
        "d61426a4634a8eecc44ca258c3d70b9730dadcefc625bd5890f1207269d7b660"),
    ("Sexual_orientation", "es", False): _mbbq("Sexual_orientation_es.jsonl",
        "8e75c1e1931fc288b91c9418b35267429f8bbdd2848e04feeaa531fecccf14d9"),
    ("Sexual_orientation", "nl", False): _mbbq("Sexual_orientation_nl.jsonl",
        "894e58600a28bb0063c775517daff5054a827ef3a6c4fdd17605a2703edb6e49"),
    ("Sexual_orientation", "tr", False): _mbbq("Sexual_orientation_tr.jsonl",
        "e4f17323bd73fbba9df7f3957697d86bdfd2774ed579b838772f7a486612001c"),
}
KOBBQ_TEST = DataFile("KoBBQ_test_samples.tsv", _KOBBQ + "KoBBQ_test_samples.tsv",
                      "6eacb1c0ff995c74b26183d368c500193454b7bf96a2a0f9462641e57972aab7")
#: CBBQ's gender category: its ambiguous and disambiguated files.
CBBQ_GENDER: tuple[DataFile, ...] = (
    DataFile("ambiguous.csv", _CBBQ + "ambiguous/ambiguous.csv",
             "f928100a0a4651028272cadc339b2595b7775467c37029e433b58de79ac7b069"),
    DataFile("disambiguous.csv", _CBBQ + "disambiguous/disambiguous.csv",
             "ace38bcc96a3e4312ca16ffdc389e64f742e48eeaae165d58645c8826a68967b"),
)


def _escabbq(folder: str, digests: dict[str, str]) -> dict[str, DataFile]:
    return {c: DataFile(f"{c}.full.jsonl", f"{_ESCABBQ}{folder}/{c}.full.jsonl", h) for c, h in digests.items()}


#: EsBBQ's ten category files (Spanish), by category.
ESBBQ_FILES: dict[str, DataFile] = _escabbq("data_es", {
    "Age": "90858d72d6bd271310376019368d7baf130cb21de851fd322bc97859c09faed8",
    "DisabilityStatus": "17dab15b71aca8e8316c43058d45598f7cd5b0080b5cc5c7e7b3741df1f9db3a",
    "Gender": "9c286f02580400d2592d547ddbe7605a5ba3b0a793a254551314f778fbdefb6a",
    "LGBTQIA": "7e0fd4b5f5c69a8818fe4da6483ee64fd41e34a719c31c61cd5f1246620e564c",
    "Nationality": "3a076c1f423a2d5a7a45a1142b0fc806f1446de83775c610a3088783de181a5f",
    "PhysicalAppearance": "e3614cf7bf83e368125600e8ad20378be821292bc46083bbca5459c206f93a1d",
    "RaceEthnicity": "b8b0db2bcabbe2db380e4cc2ba790241acc196973044625d33e43c1a87e2c899",
    "Religion": "10d2d30933bc1dcae03c15b2d5d3aa43379d0a6d8214090ce8ee2c064abe46a8",
    "SES": "469704cb1c969bd5a6dece149366496eecdae1927571870c510dae80daec840a",
    "SpanishRegion": "d890a3efe6837127844b6927dc3fd388fa4f10ca6025feb98a1ce2440d20e1d5",
})
#: CaBBQ's ten category files (Catalan), by category: the same names as EsBBQ's, so a data tree
#: holding both is told apart by folder (data.find).
CABBQ_FILES: dict[str, DataFile] = _escabbq("data_ca", {
    "Age": "6ba9856c2525e16c5ff3dd1bff9140e761d12934ff0a7d716d02c5c4600ccb61",
    "DisabilityStatus": "32371366c95c98ec8fcbda876333e587a0585e9ec4cce2430800fcc15492ed16",
    "Gender": "c720fb5de47d5b1f1b231bed027a4bd2b97cb1cc4cf2b4ab5c0d9f470e690c8d",
    "LGBTQIA": "42d8ece34e6db5d20ede0e2f5a948ac4c1786782e2d8ef3be6895102d2b03526",
    "Nationality": "844cd8c92b0457b1e967daa0398898ce107b340630af9a7acedef73aea00bbbe",
    "PhysicalAppearance": "609f4a0a88e921aa3e3dc70c2e2225638bc8f1d70bafdc54a6fa23548fa74293",
    "RaceEthnicity": "92519cba418ddbcb44840599e621809784ee7b2b8a7a38a579c878b2f7ad2765",
    "Religion": "597009d0b1ee338d3bfd20c2cff82376c15eee9ec69ce8d0fe58020572a67c03",
    "SES": "238a8df5e08774bccf4495715271df01fa873cc73c86c9d5dad65573556baea9",
    "SpanishRegion": "9e235adaec68da240c3902e4b7ea94f74b446472189b87974e4bb5c499314cee",
})
