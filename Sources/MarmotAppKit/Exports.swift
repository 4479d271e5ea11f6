// The app imports only MarmotAppKit; state, actions and updates come with it.
@_exported import MarmotCore
