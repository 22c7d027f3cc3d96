/work/main/userspace/check/tests/test_tracefs.o: \
 /work/main/selftests/host/test_tracefs.c \
 /work/main/userspace/include/nanograph.h \
 /work/main/selftests/host/ktap.h
/work/main/userspace/include/nanograph.h:
/work/main/selftests/host/ktap.h:
