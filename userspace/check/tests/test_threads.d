/work/main/userspace/check/tests/test_threads.o: \
 /work/main/selftests/host/test_threads.c \
 /work/main/userspace/include/nanograph.h \
 /work/main/selftests/host/ktap.h
/work/main/userspace/include/nanograph.h:
/work/main/selftests/host/ktap.h:
