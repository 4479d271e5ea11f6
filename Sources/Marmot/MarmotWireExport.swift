// Marmot's wire layer (events, rumors, components and schemes, no relays or storage) is part of
// this module's interface: every client API speaks its types, so importing Marmot brings them.
@_exported import MarmotWire
