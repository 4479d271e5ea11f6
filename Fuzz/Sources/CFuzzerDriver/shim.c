// Intentionally empty: the target only exports CFuzzerDriver.h to Swift.
