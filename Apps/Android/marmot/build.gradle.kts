// The Kotlin side of Marmot for an Android app: the JNA binding of marmot.h, the contract's models and
// MarmotManager (src/main/kotlin/org/marmot). Not built in this repository (no Android SDK here); the
// same sources are compiled and tested on the JVM by scripts/android-test.sh. See docs/android.md.
plugins {
    id("com.android.library")
    id("org.jetbrains.kotlin.android")
}

android {
    namespace = "org.marmot"
    compileSdk = 34
    defaultConfig {
        minSdk = 28 // the Swift SDK for Android's lowest API level
        consumerProguardFiles("consumer-rules.pro")
    }
    sourceSets["main"].java.srcDirs("src/main/kotlin")
    // libMarmotFFI.so and the Swift runtime libraries, per ABI (docs/android.md, "Toolchain").
    sourceSets["main"].jniLibs.srcDirs("src/main/jniLibs")
}

dependencies {
    implementation("net.java.dev.jna:jna:5.13.0@aar")
    implementation("com.google.code.gson:gson:2.10.1")
}
