import Foundation
import LeakGraph

/// Something that decodes values from `Data` (`JSONDecoder`, `PropertyListDecoder`), for
/// ``ObservableType/decode(type:decoder:)``.
public protocol DataDecoder {
    /// Decodes a value of `type` from `data`.
    func decode<Item: Decodable>(_ type: Item.Type, from data: Data) throws -> Item
}

extension JSONDecoder: DataDecoder {}
extension PropertyListDecoder: DataDecoder {}

extension ObservableType where Element == Data {
    /// Decodes each `Data` element into `type` with `decoder`; a decoding error fails the sequence.
    ///
    /// ```swift
    /// responses.decode(type: User.self, decoder: JSONDecoder())
    /// ```
    public func decode<Item: Decodable, Decoder: DataDecoder>(type: Item.Type, decoder: Decoder) -> Observable<Item> {
        map { try decoder.decode(type, from: $0) }
    }
}
